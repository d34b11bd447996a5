/**
 * Workers Logs see one JSON line per tool call and one per run, written by the session's event sink
 * (src/observability/run-log.ts) as the run happens.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createSession, nextResponse, script, send } from "./support.ts";

afterEach(() => vi.restoreAllMocks());

describe("structured log lines", () => {
  it("logs the tool call and the run with session, run, tool, duration, outcome, tokens and retries", async () => {
    const lines: Record<string, unknown>[] = [];
    vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
      if (typeof args[0] === "string" && args[0].startsWith("{")) lines.push(JSON.parse(args[0]) as Record<string, unknown>);
    });
    const session = await createSession();
    await script(
      session,
      { status: 503, errorMessage: "busy" },
      { toolCalls: [{ name: "getTime", arguments: { timezone: "UTC" } }] },
      { text: "It is noon." },
    );
    await send(session, "what time is it?");
    await nextResponse(session);
    await vi.waitFor(() => expect(lines.some((l) => l.event === "run" && l.sessionId === session.id)).toBe(true));
    const mine = lines.filter((l) => l.sessionId === session.id);
    const tool = mine.find((l) => l.event === "toolCall");
    const run = mine.find((l) => l.event === "run");
    expect(tool).toMatchObject({ tool: "getTime", isError: false, runId: expect.any(String) });
    expect(typeof tool!.durationMs).toBe("number");
    expect(run).toMatchObject({
      runId: tool!.runId,
      stopReason: "stop",
      isError: false,
      toolCalls: 1,
      toolErrors: 0,
      retries: 1,
      model: "mock-model",
    });
    expect((run!.tokens as { totalTokens: number }).totalTokens).toBeGreaterThan(0);
  });
});
