import { describe, expect, it } from "vitest";
import { createSession, llmRequests, nextResponse, openEvents, script, send } from "../session/support.ts";
import { expectEveryToolCallAnswered, snapshotOf } from "./support.ts";

describe("LLM faults", () => {
  it("retries a 429 with Retry-After and then answers", async () => {
    const s = await createSession();
    await script(s, { status: 429, headers: { "retry-after": "0" }, errorMessage: "slow down" }, { text: "after the wait" });
    await send(s, "hi");
    expect((await nextResponse(s)).content).toEqual([{ type: "text", text: "after the wait" }]);
    expect(await llmRequests(s)).toHaveLength(2);
  });

  it("ends the run with stopReason error and the server's message when 500s persist", async () => {
    const s = await createSession();
    const failing = { status: 500, errorMessage: "upstream exploded" };
    await script(s, failing, failing, failing, failing, failing);
    const events = await openEvents(s);
    await send(s, "hi");
    const seen = await events.until("runEnd");
    expect(seen.some((e) => e.event === "error")).toBe(true);
    const response = await nextResponse(s);
    expect(response.stopReason).toBe("error");
    expect(String(response.errorMessage)).toContain("upstream exploded");
    await events.cancel();
  });

  it("ends with an error, not duplicated text, when the stream is cut after text was sent", async () => {
    const s = await createSession();
    await script(s, { text: "one two three four five six", cutAfterChunks: 3 }, { text: "recovered" });
    await send(s, "hi");
    const response = await nextResponse(s);
    expect(response.stopReason).toBe("error");
    await send(s, "again");
    expect((await nextResponse(s)).content).toEqual([{ type: "text", text: "recovered" }]);
  });

  it("answers invalid JSON arguments, unknown tools and id-less calls with error results the model sees", async () => {
    const s = await createSession();
    await script(
      s,
      {
        toolCalls: [
          { id: "bad", name: "slowEcho", arguments: "{not json" },
          { id: "ghost", name: "noSuchTool", arguments: {} },
          { id: "", name: "slowEcho", arguments: { text: "no id", ms: 1 } },
        ],
      },
      { text: "handled" },
    );
    await send(s, "go");
    expect((await nextResponse(s)).content).toEqual([{ type: "text", text: "handled" }]);
    const second = (await llmRequests(s))[1]!.body.messages;
    const tools = second.filter((m) => m.role === "tool");
    expect(tools).toHaveLength(3);
    expect(String(tools[0]!.content)).toContain("Invalid JSON");
    expect(String(tools[1]!.content)).toContain('Tool "noSuchTool" not found');
    expect(tools[2]!.content).toBe("echo: no id");
    const assistant = second.find((m) => m.role === "assistant")!;
    expect((assistant.tool_calls as { id: string }[]).map((c) => c.id)).toEqual(tools.map((t) => t.tool_call_id));
    expectEveryToolCallAnswered((await snapshotOf(s)).messages);
  });

  it("treats an empty answer as a final, empty response", async () => {
    const s = await createSession();
    await script(s, { text: "" });
    await send(s, "say nothing");
    const response = await nextResponse(s);
    expect(response).toMatchObject({ role: "assistant", stopReason: "stop" });
    expect((await snapshotOf(s)).status).toBe("idle");
  });

  it("stores and streams an enormous answer whole", async () => {
    const s = await createSession();
    const words = Array.from({ length: 20_000 }, (_, i) => `w${i}`).join(" ");
    await script(s, { text: words });
    await send(s, "talk a lot");
    // 20,000 streamed chunks take 10–30 s on a loaded 2-core machine: wait longer than the default.
    const response = (await nextResponse(s, 55_000)) as { content: { text: string }[] };
    expect(response.content[0]!.text).toBe(words);
  }, 90_000);
});
