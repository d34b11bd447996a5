/**
 * Helpers for the writeTool tests in workerd: unique tool names (tests share one KV and R2), a writeTool
 * call for the scripted model, direct calls of the writeTool tool with a chosen env, and reading a
 * session's tool results from its snapshot.
 */
import { env } from "cloudflare:test";
import type { AgentTool, AgentToolResult, ToolArguments, ToolResultMessage } from "../../src/core/types.ts";
import { bundledToolNames } from "../../src/tools/catalog.ts";
import { registerDraft } from "../../src/tools/written/session-tools.ts";
import { ToolStore } from "../../src/core/tool-store.ts";
import type { WriteToolInput } from "../../src/tools/written/spec.ts";
import { getTool } from "../../tools/writeTool.ts";
import type { MockReply } from "../../support/mock-openai-server.ts";
import { api, type TestSession } from "./support.ts";

export type WorkerEnv = {
  TOOL_INDEX: KVNamespace;
  TOOL_SOURCE: R2Bucket;
  LOADER: WorkerLoader;
  WRITE_TOOL_ENABLED: string;
  OPENAI_API_KEY: string;
};
export const workerEnv = env as unknown as WorkerEnv;

/** A fresh identifier, so tests never see each other's tools in the shared index. */
export const uniqueName = (prefix = "tool") => `${prefix}_${crypto.randomUUID().replace(/-/g, "").slice(0, 10)}`;

export const adderInput = (name: string, overrides: Partial<WriteToolInput> = {}): WriteToolInput => ({
  name,
  label: "Add Numbers",
  description: "Adds a and b.",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  executeCode: "return `sum: ${args.a + args.b}`;",
  ...overrides,
});

export const writeToolReply = (id: string, input: WriteToolInput): MockReply => ({
  toolCalls: [{ id, name: "writeTool", arguments: input }],
});
export const callReply = (id: string, name: string, args: ToolArguments): MockReply => ({ toolCalls: [{ id, name, arguments: args }] });

export type DirectOutcome = { ok: true; result: AgentToolResult } | { ok: false; error: string };

/** Calls writeTool's execute as the pipeline would, with `envOverrides` on top of the test Worker's env. */
export async function runWriteToolDirectly(
  input: WriteToolInput,
  envOverrides: Record<string, unknown> = {},
  store = new ToolStore("direct"),
): Promise<DirectOutcome> {
  const tool = getTool();
  // As the session hands it over: the env and the registerDraft capability (with the bundled names), into `store` only.
  const context = {
    sessionId: "direct-session",
    env: { ...workerEnv, ...envOverrides },
    registerDraft: (draft: AgentTool) => registerDraft(store, draft),
    bundledToolNames,
  };
  try {
    return { ok: true, result: await tool.execute("direct-call", input, undefined, () => {}, context) };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

export async function toolResults(session: TestSession): Promise<ToolResultMessage[]> {
  const res = await api(`/v1/sessions/${session.id}`, { key: session.key });
  const snapshot = (await res.json()) as { messages: { role: string }[] };
  return snapshot.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
}

export { textOf } from "../support/text.ts";

/**
 * writeTool waits for a human's yes (its own requiresApproval flag): approves the session's next
 * pending writeTool call, as the human would, once it is asked for.
 */
export async function approveWriteTool(session: TestSession, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const snapshot = (await (await api(`/v1/sessions/${session.id}`, { key: session.key })).json()) as {
      pendingApprovals: { toolCallId: string; toolName: string }[];
    };
    const pending = snapshot.pendingApprovals.find((p) => p.toolName === "writeTool");
    if (pending) {
      await api(`/v1/sessions/${session.id}/tool-calls/${encodeURIComponent(pending.toolCallId)}/approval`, {
        method: "POST",
        key: session.key,
        json: { approve: true },
      });
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("writeTool never asked for approval");
}
