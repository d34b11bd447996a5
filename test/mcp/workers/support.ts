/**
 * Helpers for the MCP workers tests: the mock MCP server's control API (test/support/mock-mcp-server.ts)
 * and waiting for a session to list its remote tools.
 */
import { inject } from "vitest";
import { snapshotOf, type TestSession } from "../../session/support.ts";
import type { MockMcpState } from "../../support/mock-mcp-server.ts";
import { sleep } from "../../support/time.ts";

export async function mcpState(): Promise<MockMcpState> {
  return (await fetch(`${inject("mcpUrl")}/control/state`)).json();
}

export async function mcpControl(action: "add-tool" | "reset"): Promise<void> {
  const res = await fetch(`${inject("mcpUrl")}/control/${action}`, { method: "POST" });
  if (!res.ok) throw new Error(`mock MCP control ${action} failed: ${res.status}`);
}

export async function waitFor(condition: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(25);
  }
}

/** Waits until the session's snapshot lists every tool in `names`; returns the snapshot's tool names. */
export async function toolsOnceListed(session: TestSession, names: string[]): Promise<string[]> {
  let tools: string[] = [];
  await waitFor(async () => {
    tools = (await snapshotOf(session)).tools;
    return names.every((n) => tools.includes(n));
  });
  return tools;
}
