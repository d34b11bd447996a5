/**
 * writeTool (docs/written-tools.md "Tools the agent writes (writeTool)"): the agent writes a new tool from a
 * name, a JSON Schema and the body of its execute function. The file is rendered to the same contract as
 * hand-written tools, stored in R2 with a pending row in KV, run at once as a sandboxed draft where the
 * Worker has a LOADER, and shipped by redeploy. Off unless WRITE_TOOL_ENABLED is "true"; the flow lives in
 * src/tools/written/write-tool.ts.
 */
import { defineTool } from "../src/tools/define-tool.ts";
import { writeToolInput } from "../src/tools/written/spec.ts";
import { runWriteTool, WRITE_TOOL_ENV } from "../src/tools/written/write-tool.ts";
import type { AgentTool } from "../src/core/index.ts";

export function getTool(): AgentTool {
  return defineTool({
    name: "writeTool",
    label: "Write Tool",
    description:
      "Write a new tool when none of your tools can do the job (call listTools first to avoid name clashes). " +
      "Give its name, label, description, a JSON Schema for its arguments and the body of its execute function in plain JavaScript. " +
      "Where drafts are supported the tool is callable at once in this session, sandboxed (no network, no bindings); " +
      "it becomes a permanent tool after an operator's redeploy, which typechecks it as TypeScript (so use String(err) for caught errors).",
    schema: writeToolInput(),
    env: WRITE_TOOL_ENV,
    capabilities: ["registerDraft"],
    // A prompt injected through any tool result could make the model write a tool (and ask for a
    // redeploy): a human says yes to every call. The tool's own flag, so no session setting lifts it.
    requiresApproval: true,
    execute: (toolCallId, args, _signal, _onPartialResult, context) => runWriteTool(args, toolCallId, context),
  });
}
