/**
 * defineTool: the tool author's kit. A zod object schema goes in; an AgentTool whose `inputSchema` is
 * the schema's JSON Schema comes out, so the LLM and the core's validation both see plain JSON Schema.
 * Called from `tools/<name>.ts` files inside their `getTool()`; the plain-object form needs none of this.
 * Invariants: `execute` receives arguments already checked by the core, then parsed by the zod schema
 * (which applies defaults and transforms the JSON Schema cannot express); whatever it returns (a string,
 * or `{content}` with optional details/terminate) reaches the core as a full AgentToolResult; a field
 * this kit does not know fails getTool() with its name (so the build names it), never later.
 * defineSubAgent builds a tool whose call runs another agent (a child session) on a `{task}`.
 */
import * as z from "zod";
import { lazySchema } from "../lazy-schema.ts";
import type {
  AgentTool,
  AgentToolResult,
  JsonSchema,
  OnPartialResult,
  ToolArguments,
  ToolCapability,
  ToolExecutionContext,
  ToolAnnotations,
  ToolResultContent,
  Usage,
} from "../core/index.ts";
import type { AppEnv } from "../env.ts";
// A tool's context and capabilities include what host features merge in (runSubAgent below, schedules…).
import type {} from "../host-vocabulary.ts";
import { describeUnknownFields, type ListsEvery } from "./unknown-fields.ts";

/** The Worker's vars, secrets and bindings a tool may declare (not the session namespace, nor the signing secret). */
export type ToolEnvKey = Exclude<keyof AppEnv, "AGENT_SESSION" | "SIGNING_SECRET"> & string;
/** A tool's context, typed by the env keys it declared: each is there when the Worker has it. */
export type ToolContext<K extends ToolEnvKey = never> = Omit<ToolExecutionContext, "env"> & { env: Partial<Pick<AppEnv, K>> };

/**
 * What execute may return: a string (one text block), or its content with optional `details` (default
 * `{}`), `usage` and `terminate` (default false). `C` is the content block type: plain-object tools may
 * write blocks without `as const` (the core checks each block when the tool returns).
 */
export type ToolReturn<C = ToolResultContent> =
  | string
  | { content: readonly C[]; details?: Record<string, unknown>; usage?: Usage; terminate?: boolean };

/** A content block as a plain-object tool writes it: `type` widened to string is fine. */
export type LooseContent = { type: string; text?: string; data?: string; mimeType?: string };

/**
 * A tool as a plain-object `getTool()` returns it, importing nothing: the registry checks each file
 * against this (scripts/generate-registry.ts). `execute` is a method, so its `args` may be typed as the
 * tool's own argument shape.
 */
export type PlainTool = Omit<AgentTool, "execute" | "capabilities"> & {
  execute(
    toolCallId: string,
    args: ToolArguments,
    signal: AbortSignal | undefined,
    onPartialResult: OnPartialResult,
    context?: ToolExecutionContext,
  ): ToolReturn<LooseContent> | Promise<ToolReturn<LooseContent>>;
  capabilities?: readonly string[];
};
/** The generated registry's type: tool file name → module. */
export type ToolFileRegistry = Readonly<Record<string, { getTool: () => PlainTool }>>;

export type ToolDefinition<S extends z.ZodObject, K extends ToolEnvKey = never> = {
  name: string;
  label: string;
  description: string;
  schema: S;
  execute: (
    toolCallId: string,
    args: z.output<S>,
    signal: AbortSignal | undefined,
    onPartialResult: OnPartialResult,
    context?: ToolContext<K>,
  ) => ToolReturn | Promise<ToolReturn>;
  /** Env keys and bindings the tool needs; it gets these and nothing else (src/tools/tool-context.ts). */
  env?: readonly K[];
  capabilities?: readonly ToolCapability[];
  prepareArguments?: AgentTool["prepareArguments"];
  parallelToolExecute?: boolean;
  idempotent?: boolean;
  requiresApproval?: boolean;
  timeoutMs?: number;
  /** Hints for MCP clients of /mcp (read-only, destructive, …); never a security boundary. */
  annotations?: ToolAnnotations;
  /**
   * The shape of the result's `details`, when the tool promises one: /mcp serves it as the tool's
   * outputSchema and the details as structuredContent. Details that do not match fail the call.
   */
  output?: z.ZodObject;
};

/**
 * The JSON Schema the model must satisfy. "input" mode describes what a caller sends (a field with a
 * default is optional), and the `$schema` key is dropped because LLM tool APIs do not want it.
 */
export function toInputSchema(schema: z.ZodObject): JsonSchema {
  const { $schema: _dialect, ...jsonSchema } = z.toJSONSchema(schema, { io: "input" });
  return jsonSchema;
}

/** The JSON Schema of what a tool promises to return in `details` (what it produces, so "output" mode). */
function toOutputSchema(schema: z.ZodObject): JsonSchema {
  const { $schema: _dialect, ...jsonSchema } = z.toJSONSchema(schema, { io: "output" });
  return jsonSchema;
}

/** Every field of ToolDefinition; anything else in a definition is a mistake worth naming. */
const DEFINITION_FIELDS = [
  "name",
  "label",
  "description",
  "schema",
  "execute",
  "env",
  "capabilities",
  "prepareArguments",
  "parallelToolExecute",
  "idempotent",
  "requiresApproval",
  "timeoutMs",
  "annotations",
  "output",
] as const satisfies readonly (keyof ToolDefinition<z.ZodObject>)[];
// tsc fails on this line when ToolDefinition gains a field the list above lacks.
const _definitionFieldsComplete: ListsEvery<ToolDefinition<z.ZodObject>, typeof DEFINITION_FIELDS> = true;

/** A full AgentToolResult from what execute returned: a string becomes one text block; defaults filled in. */
export function toToolResult(value: ToolReturn): AgentToolResult {
  if (typeof value === "string") return { content: [{ type: "text", text: value }], details: {}, terminate: false };
  // Not a result at all (a JavaScript tool returned null, a number…): the core names what is wrong.
  if (typeof value !== "object" || value === null || !Array.isArray(value.content)) return value as unknown as AgentToolResult;
  const { content, details, terminate, ...rest } = value;
  return { ...rest, content: [...content], details: details ?? {}, terminate: terminate ?? false };
}

/** The definition's mistakes a type checker may not have seen (a tool file nobody ran tsc on). */
function checkDefinition(definition: object & { name?: unknown; schema?: unknown }): void {
  const problems = describeUnknownFields(definition, DEFINITION_FIELDS, "defineTool");
  if (!(definition.schema instanceof z.ZodObject) && !problems.some((p) => p.includes("`schema`")))
    problems.push("`schema` must be a zod object schema (z.object({ ... }))");
  const output = (definition as { output?: unknown }).output;
  if (output !== undefined && !(output instanceof z.ZodObject)) problems.push("`output` must be a zod object schema (z.object({ ... }))");
  if (problems.length) throw new Error(`defineTool(${JSON.stringify(String(definition.name))}): ${problems.join("; ")}`);
}

export function defineTool<S extends z.ZodObject, K extends ToolEnvKey = never>(definition: ToolDefinition<S, K>): AgentTool {
  checkDefinition(definition);
  const { schema, execute, output, ...rest } = definition;
  const finish = output ? (value: ToolReturn) => checkedDetails(definition.name, output, toToolResult(value)) : toToolResult;
  return {
    ...rest,
    inputSchema: toInputSchema(schema),
    ...(output ? { outputSchema: toOutputSchema(output) } : {}),
    execute(toolCallId: string, args: ToolArguments, signal, onPartialResult, context) {
      // The core validated `args` against the JSON Schema already; this parse only fails on zod
      // refinements that JSON Schema cannot carry, and the pipeline turns the throw into an error result.
      const parsed = schema.safeParse(args);
      if (!parsed.success) {
        const problems = parsed.error.issues.map((i) => `- ${i.path.map(String).join(".") || "(arguments)"}: ${i.message}`);
        throw new Error(`Invalid arguments for tool "${definition.name}":\n${problems.join("\n")}`);
      }
      // The host built `context` from the `env` list above, so it holds at most the declared keys.
      const value = execute(toolCallId, parsed.data, signal, onPartialResult, context as ToolContext<K> | undefined);
      return value instanceof Promise ? value.then(finish) : finish(value);
    },
  };
}

/** The result with its details parsed by the promised shape; details that break the promise fail the call. */
function checkedDetails(name: string, output: z.ZodObject, result: AgentToolResult): AgentToolResult {
  const parsed = output.safeParse(result.details);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `- ${i.path.map(String).join(".") || "(details)"}: ${i.message}`);
    throw new Error(`Tool "${name}" returned details that do not match its output schema:\n${problems.join("\n")}`);
  }
  return { ...result, details: parsed.data };
}

/** What a sub-agent is: its tool identity and the child session's prompt, tools, model and step limit. */
export type SubAgentDefinition = {
  name: string;
  label?: string;
  description: string;
  systemPrompt: string;
  /** Registry tool names the child may use (within what the parent session may use); default: every tool but sub-agents. */
  tools?: readonly string[];
  /** A model for the child (default: the parent session's). */
  model?: string;
  /** LLM calls the child's run may make (default: the runtime's limit). */
  maxSteps?: number;
};

/** A child may work longer than a plain tool call is allowed to, but not forever. */
export const SUB_AGENT_TIMEOUT_MS = 15 * 60_000;

// Built when a sub-agent tool is first made (src/lazy-schema.ts): start-up builds no schema.
const subAgentInput = lazySchema(() =>
  z.object({ task: z.string().min(1).describe("What the sub-agent should do, with everything it needs to know.") }),
);

/**
 * A tool whose call runs a child session with `systemPrompt` on the given task and answers its final text.
 * The host runs it (the "subAgent" capability); a call resumed after a restart re-attaches to the same
 * child, which is why the tool is idempotent.
 */
export function defineSubAgent(definition: SubAgentDefinition): AgentTool {
  const { name, label, description, systemPrompt, tools, model, maxSteps } = definition;
  return defineTool({
    name,
    label: label ?? name,
    description,
    schema: subAgentInput(),
    capabilities: ["subAgent"],
    idempotent: true,
    parallelToolExecute: true,
    timeoutMs: SUB_AGENT_TIMEOUT_MS,
    execute(toolCallId, { task }, signal, onPartialResult, context) {
      if (!context?.runSubAgent) throw new Error(`Sub-agent "${name}" can only run inside a session`);
      return context.runSubAgent({ toolCallId, task, name, systemPrompt, tools, model, maxSteps }, onPartialResult, signal);
    },
  });
}

/** Whether `tool` is a sub-agent (a tool defineSubAgent built, or one declaring its capability). */
export const isSubAgent = (tool: Pick<AgentTool, "capabilities">): boolean => tool.capabilities?.includes("subAgent") === true;
