/**
 * What writeTool takes (the spec's writeTool input, in TypeScript) and what the tool index stores about a written tool.
 * The spec is the model's input, kept verbatim in R2 beside the rendered source; the entry is the KV
 * index row that the session, the HTTP API and scripts/redeploy.ts read. Shared vocabulary only.
 */
import * as z from "zod";
import type { JsonSchema } from "../../core/index.ts";
import { lazySchema } from "../../lazy-schema.ts";

/** Built on first use (writeTool's getTool()), not at module load: start-up CPU, see src/lazy-schema.ts. */
export const writeToolInput = lazySchema(() =>
  z.object({
    name: z.string().describe("The tool's name: a JavaScript identifier (letters, digits, underscores; not starting with a digit)."),
    label: z.string().describe("A short human-readable name."),
    description: z.string().describe("What the tool does and when to use it; the model sees this."),
    inputSchema: z
      .record(z.string(), z.unknown())
      .describe('JSON Schema of the arguments: {"type":"object","properties":{...},"required":[...]}.'),
    executeCode: z
      .string()
      .describe(
        "The body of `async function executeTool(args, signal, onPartialResult, context)` in plain JavaScript (no type annotations). " +
          "`context` is {sessionId, toolCallId, env}. Return a string, an object (sent as JSON), or {content:[{type:'text',text}], details}. " +
          "Throw an Error to report a failure. No import, no network (drafts are sandboxed).",
      ),
    validateCode: z
      .string()
      .optional()
      .describe(
        "Optional body of `function validateArgs(args)`: return an error message string, or nothing when valid. Replaces the schema check.",
      ),
    prepareCode: z
      .string()
      .optional()
      .describe("Optional body of `function prepareArgs(args)`: return the arguments to validate and execute."),
    parallel: z.boolean().optional().describe("Whether calls may run in parallel with other tools (default false)."),
  }),
);

export type WriteToolInput = z.output<ReturnType<typeof writeToolInput>>;

/** The input after checks: the schema is known to be an object schema. */
export type WrittenToolSpec = Omit<WriteToolInput, "inputSchema" | "parallel"> & {
  inputSchema: JsonSchema;
  parallel: boolean;
};

export type WrittenToolStatus = "pending" | "rejected" | "deployed";

export type WrittenToolAuthor = { sessionId?: string; toolCallId?: string };

/** One KV index row (`tool:<name>`): the latest version of a written tool and its deployment state. */
export type WrittenToolEntry = {
  name: string;
  version: number;
  /** sha256 hex of the rendered source stored at `sourceKey`. */
  hash: string;
  status: WrittenToolStatus;
  label: string;
  description: string;
  author: WrittenToolAuthor;
  writtenAt: string;
  /** R2 key of the rendered tools/<name>.ts file. */
  sourceKey: string;
  /** R2 key of the spec (JSON), from which a draft is rendered. */
  specKey: string;
  /** Why redeploy rejected this version (status "rejected"). */
  error?: string;
  rejectedAt?: string;
  deployedAt?: string;
};
