/**
 * The bundled tool `runCode` (code mode, on with CODE_MODE = "true" and a LOADER binding): the model
 * sends the body of an async JavaScript function that calls `tools.<name>(args)`; it runs in a sandboxed
 * isolate (run-program.ts) and each call goes back through the run's pipeline as a nested call (the
 * loop grants the "toolCalls" capability per call: core/nested-tool-calls.ts). Registered by the session
 * loader. Its description is read each step, so it lists the session's tools as they are then (drafts
 * and MCP tools come and go). Idempotent: a restart runs the program again, and its nested calls replay
 * from the journal (at most once each); its own timeout pauses while a nested call waits for a person.
 */
import type { AgentTool, AgentToolResult, ToolResultContent, ToolStore } from "../core/index.ts";
import { runProgram } from "./run-program.ts";
import { toolSignatures } from "./signatures.ts";

export const RUN_CODE = "runCode";
/** Characters of code one program may have. */
export const MAX_CODE_CHARS = 50_000;
/** Wall-clock limit of one program, not counting time a nested call waits for a person. */
export const RUN_CODE_TIMEOUT_MS = 120_000;
/** Characters of runCode's description (the tool list can be long). */
const MAX_DESCRIPTION_CHARS = 30_000;

const INTRO = [
  "Run a JavaScript program that calls tools, instead of calling them one by one: use it when a task needs",
  "several tool calls, especially when one result feeds the next. `code` is the body of an async function;",
  "`await tools.<name>(args)` resolves to the tool's result text or throws an Error with its error text;",
  "`console.log` output is returned. Run independent calls together with `await Promise.all([...])`.",
  "Return a JSON-serialisable value. No network, no imports. The result is {returned, logs} as JSON.",
  "Example: const [a, b] = await Promise.all([tools.getTime({ timezone: 'Asia/Tokyo' }), tools.getTime({ timezone: 'Europe/Paris' })]); return { a, b };",
].join("\n");

export function createRunCodeTool(store: ToolStore, loader: WorkerLoader): AgentTool {
  const tool: AgentTool = {
    name: RUN_CODE,
    label: "Run Code",
    description: INTRO,
    inputSchema: {
      type: "object",
      properties: { code: { type: "string", description: "The body of an async JavaScript function." } },
      required: ["code"],
      additionalProperties: false,
    },
    capabilities: ["toolCalls"],
    idempotent: true,
    // Its own timeout (which pauses while a person decides), not the pipeline's.
    timeoutMs: 0,
    validateRequiredArgs: (args) =>
      typeof args.code !== "string"
        ? "runCode needs `code`, a string"
        : args.code.length > MAX_CODE_CHARS
          ? `The code is ${args.code.length} characters; at most ${MAX_CODE_CHARS}`
          : undefined,
    async execute(_toolCallId, args, signal, _onPartialResult, context): Promise<AgentToolResult> {
      const nested = context?.toolCalls;
      if (!nested) throw new Error("runCode can only run inside a session's run");
      const outcome = await runProgram({
        loader,
        code: String(args.code),
        toolNames: nested.tools().map((t) => t.name),
        dispatch: async (name, callArgs, stopped) => {
          const { result, isError } = await nested.call(name, callArgs, signal ? AbortSignal.any([signal, stopped]) : stopped);
          return { isError, text: textOf(result.content) };
        },
        timeoutMs: RUN_CODE_TIMEOUT_MS,
        onHumanWait: nested.onHumanWait,
        ...(signal ? { signal } : {}),
      });
      if (!outcome.ok) {
        const logs = outcome.logs.length > 0 ? `\nLogs:\n${outcome.logs.join("\n")}` : "";
        throw new Error(`${outcome.error}${logs}`);
      }
      return {
        content: [{ type: "text", text: JSON.stringify({ returned: outcome.returned, logs: outcome.logs }) }],
        details: {},
        terminate: false,
      };
    },
  };
  // Read at every step: the session's tools as they are now.
  Object.defineProperty(tool, "description", {
    enumerable: true,
    get: () => {
      const tools = store.list().filter((t) => t.name !== RUN_CODE);
      const text = `${INTRO}\n\ndeclare const tools: {\n${toolSignatures(tools)}\n};`;
      return text.length > MAX_DESCRIPTION_CHARS ? `${text.slice(0, MAX_DESCRIPTION_CHARS)}\n… (listTools names the rest)` : text;
    },
  });
  return tool;
}

/** The text parts of a result, joined (what `tools.x()` resolves to). */
const textOf = (content: readonly ToolResultContent[]): string =>
  content.map((block) => (block.type === "text" ? block.text : "")).join("");
