import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/core/events.ts";
import type { StampedEvent } from "../../src/wire/events.ts";
import type { AssistantMessage } from "../../src/core/types.ts";
import { HELD_LINES_MAX, MAX_ERROR_CHARS, RunLog, type LogLine } from "../../src/observability/run-log.ts";

/** A RunLog whose lines are collected, fed events stamped as the session's sink stamps them. */
function harness() {
  const lines: LogLine[] = [];
  const log = new RunLog((line) => void lines.push(JSON.parse(line) as LogLine));
  let seq = 0;
  const feed = (ts: number, event: AgentEvent, runId = "run-1") =>
    log.observe({ ...event, seq: ++seq, sessionId: "s_1", runId, ts } as StampedEvent);
  return { lines, feed };
}

const answer = (text: string, extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
  stopReason: "stop",
  timestamp: 0,
  ...extra,
});
const usage = (input: number, output: number) => ({ inputTokens: input, outputTokens: output, totalTokens: input + output });
const toolResult = { content: [{ type: "text" as const, text: "ok" }], details: {}, terminate: false };

describe("the structured run log", () => {
  it("writes one line per tool call with its duration and outcome, just before the run's line", () => {
    const { lines, feed } = harness();
    feed(1_000, { type: "runStart" });
    feed(1_100, { type: "toolExecStart", toolCallId: "c1", toolName: "getWeather", arguments: {} });
    feed(1_350, {
      type: "toolExecEnd",
      toolCallId: "c1",
      toolName: "getWeather",
      result: { ...toolResult, usage: usage(3, 4) },
      isError: false,
    });
    feed(1_400, { type: "toolExecStart", toolCallId: "c2", toolName: "getTime", arguments: {} });
    feed(1_410, { type: "toolExecEnd", toolCallId: "c2", toolName: "getTime", result: toolResult, isError: true });
    expect(lines).toEqual([]);
    feed(1_500, { type: "runEnd", response: answer("done"), stopReason: "stop" });
    expect(lines.slice(0, 2)).toEqual([
      {
        event: "toolCall",
        sessionId: "s_1",
        runId: "run-1",
        tool: "getWeather",
        toolCallId: "c1",
        durationMs: 250,
        isError: false,
        tokens: usage(3, 4),
      },
      {
        event: "toolCall",
        sessionId: "s_1",
        runId: "run-1",
        tool: "getTime",
        toolCallId: "c2",
        durationMs: 10,
        isError: true,
        tokens: null,
      },
    ]);
    expect(lines.map((l) => l.event)).toEqual(["toolCall", "toolCall", "run"]);
  });

  it("writes held tool-call lines once HELD_LINES_MAX of them wait, so a long run holds few", () => {
    const { lines, feed } = harness();
    feed(0, { type: "runStart" });
    for (let i = 0; i < HELD_LINES_MAX + 1; i++) {
      feed(i, { type: "toolExecStart", toolCallId: `c${i}`, toolName: "getTime", arguments: {} });
      feed(i, { type: "toolExecEnd", toolCallId: `c${i}`, toolName: "getTime", result: toolResult, isError: false });
    }
    expect(lines).toHaveLength(HELD_LINES_MAX);
    expect(lines.at(-1)).toMatchObject({ event: "toolCall", toolCallId: `c${HELD_LINES_MAX - 1}` });
  });

  it("writes one line per run with duration, tokens summed over its LLM calls, tool counts and retries", () => {
    const { lines, feed } = harness();
    feed(5_000, { type: "runStart" });
    feed(5_010, { type: "llmRetry", retry: 1, delayMs: 500, message: "LLM request failed with HTTP 503" });
    const first = answer("", { usage: usage(100, 10), model: "m" });
    feed(5_600, { type: "messageEnd", message: first });
    feed(5_610, { type: "toolExecStart", toolCallId: "c1", toolName: "getTime", arguments: {} });
    feed(5_620, { type: "toolExecEnd", toolCallId: "c1", toolName: "getTime", result: toolResult, isError: true });
    const final = answer("It is noon.", { usage: usage(150, 20), model: "m" });
    feed(6_000, { type: "messageEnd", message: final });
    feed(6_001, { type: "runEnd", response: final, stopReason: "stop" });
    expect(lines.at(-1)).toEqual({
      event: "run",
      sessionId: "s_1",
      runId: "run-1",
      durationMs: 1_001,
      stopReason: "stop",
      isError: false,
      model: "m",
      toolCalls: 1,
      toolErrors: 1,
      tokens: usage(250, 30),
      retries: 1,
      resumed: false,
    });
  });

  it("marks a failed run as an error and starts counting afresh for the next run", () => {
    const { lines, feed } = harness();
    feed(0, { type: "runStart" });
    feed(1, { type: "llmRetry", retry: 1, delayMs: 5, message: "x" });
    const failed = answer("", { stopReason: "error", errorMessage: "LLM request failed with HTTP 401" });
    feed(9, { type: "runEnd", response: failed, stopReason: "error" });
    feed(20, { type: "runStart" }, "run-2");
    feed(25, { type: "runEnd", response: answer("hi"), stopReason: "stop" }, "run-2");
    expect(lines.map((l) => (l.event === "run" ? [l.runId, l.isError, l.retries, l.durationMs] : l.event))).toEqual([
      ["run-1", true, 1, 9],
      ["run-2", false, 0, 5],
    ]);
  });

  it("names why a failed run failed: the final message's error, else the run's last error event", () => {
    const { lines, feed } = harness();
    feed(0, { type: "runStart" });
    feed(9, {
      type: "runEnd",
      response: answer("", { stopReason: "error", errorMessage: "LLM connection failed: http://127.0.0.1:9/v1 unreachable" }),
      stopReason: "error",
    });
    feed(10, { type: "runStart" }, "run-2");
    feed(11, { type: "error", message: "Binding AI needs to be run remotely" }, "run-2");
    feed(12, { type: "runEnd", response: answer("", { stopReason: "error" }), stopReason: "error" }, "run-2");
    feed(13, { type: "runStart" }, "run-3");
    feed(
      14,
      { type: "runEnd", response: answer("", { stopReason: "error", errorMessage: "x".repeat(5_000) }), stopReason: "error" },
      "run-3",
    );
    expect(lines.map((l) => (l.event === "run" ? l.error : undefined))).toEqual([
      "LLM connection failed: http://127.0.0.1:9/v1 unreachable",
      "Binding AI needs to be run remotely",
      `${"x".repeat(MAX_ERROR_CHARS)}…`,
    ]);
  });

  it("counts a run resumed after a restart from its first event and says it was resumed", () => {
    const { lines, feed } = harness();
    feed(100, { type: "toolExecEnd", toolCallId: "c9", toolName: "getTime", result: toolResult, isError: false });
    feed(130, { type: "runEnd", response: answer("done"), stopReason: "stop" });
    expect(lines[0]).toMatchObject({ event: "toolCall", durationMs: null });
    expect(lines[1]).toMatchObject({ event: "run", durationMs: 30, resumed: true, toolCalls: 1 });
  });

  it("never throws, even when writing the line fails", () => {
    const log = new RunLog(() => {
      throw new Error("console gone");
    });
    expect(() => log.observe({ type: "runEnd", response: answer("x"), stopReason: "stop", seq: 1, sessionId: "s", ts: 0 })).not.toThrow();
  });
});
