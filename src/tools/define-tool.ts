/**
 * defineTool: the tool author's kit. A zod object schema goes in; an AgentTool whose `inputSchema` is
 * the schema's JSON Schema comes out, so the LLM and the core's validation both see plain JSON Schema.
 * Called from `tools/<name>.ts` files inside their `getTool()`; the plain-object form needs none of this.
 * Invariant: `execute` receives arguments already checked by the core, then parsed by the zod schema
 * (which applies defaults and transforms the JSON Schema cannot express).
 */
import * as z from "zod";
import type {
  AgentTool,
  AgentToolResult,
  JsonSchema,
  OnPartialResult,
  ToolArguments,
  ToolExecutionContext,
} from "../core/types.ts";

export type ToolDefinition<S extends z.ZodObject> = {
  name: string;
  label: string;
  description: string;
  schema: S;
  execute: (
    toolCallId: string,
    args: z.output<S>,
    signal: AbortSignal | undefined,
    onPartialResult: OnPartialResult,
    context?: ToolExecutionContext,
  ) => AgentToolResult | Promise<AgentToolResult>;
  prepareArguments?: AgentTool["prepareArguments"];
  parallelToolExecute?: boolean;
  idempotent?: boolean;
  requiresApproval?: boolean;
  timeoutMs?: number;
};

/**
 * The JSON Schema the model must satisfy. "input" mode describes what a caller sends (a field with a
 * default is optional), and the `$schema` key is dropped because LLM tool APIs do not want it.
 */
export function toInputSchema(schema: z.ZodObject): JsonSchema {
  const { $schema: _dialect, ...jsonSchema } = z.toJSONSchema(schema, { io: "input" });
  return jsonSchema;
}

export function defineTool<S extends z.ZodObject>(definition: ToolDefinition<S>): AgentTool {
  const { schema, execute, ...rest } = definition;
  return {
    ...rest,
    inputSchema: toInputSchema(schema),
    execute(toolCallId: string, args: ToolArguments, signal, onPartialResult, context) {
      // The core validated `args` against the JSON Schema already; this parse only fails on zod
      // refinements that JSON Schema cannot carry, and the pipeline turns the throw into an error result.
      const parsed = schema.safeParse(args);
      if (!parsed.success) {
        const problems = parsed.error.issues.map((i) => `- ${i.path.map(String).join(".") || "(arguments)"}: ${i.message}`);
        throw new Error(`Invalid arguments for tool "${definition.name}":\n${problems.join("\n")}`);
      }
      return execute(toolCallId, parsed.data, signal, onPartialResult, context);
    },
  };
}
