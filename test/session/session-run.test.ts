import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createSession, llmRequests, nextResponse, openEvents, script, send } from "./support.ts";

describe("a session run", () => {
  it("answers a message with the model's text and streams the run as events", async () => {
    const session = await createSession();
    await script(session, { text: "Hello from the mock model" });
    const events = await openEvents(session);
    expect((await send(session, "hi")).status).toBe(202);

    const seen = await events.until("runEnd");
    const types = seen.map((e) => e.event);
    expect(types[0]).toBe("runStart");
    expect(types).toContain("messageDelta");
    expect(types.at(-1)).toBe("runEnd");
    const deltas = seen
      .filter((e) => e.event === "messageDelta")
      .map((e) => e.json.text)
      .join("");
    expect(deltas).toBe("Hello from the mock model");
    const response = await nextResponse(session);
    expect(response).toMatchObject({
      role: "assistant",
      stopReason: "stop",
      content: [{ type: "text", text: "Hello from the mock model" }],
    });
    await events.cancel();
  });

  it("keeps a message whose run was aborted before storing it: the next run answers it", async () => {
    const session = await createSession();
    await script(session, { text: "answered after all" });
    type Runs = { enqueue(kind: "input", content: unknown[]): unknown; abort(): unknown; settled(): Promise<void> };
    await runInDurableObject(env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(session.id)), (instance) => {
      const runs = (instance as unknown as { session: { runs: Runs } }).session.runs;
      // The message starts its run carrying it; the abort lands before the run's first step stores it.
      runs.enqueue("input", [{ type: "text", text: "keep me" }]);
      runs.abort();
    });
    expect(await nextResponse(session)).toMatchObject({ stopReason: "aborted" });
    expect(await nextResponse(session)).toMatchObject({ content: [{ type: "text", text: "answered after all" }] });
    const snapshot = (await (await api(`/v1/sessions/${session.id}`, { key: session.key })).json()) as {
      messages: { role: string; content: { text?: string }[] }[];
    };
    // The aborted run's own (empty) answer, then the message and its answer.
    expect(snapshot.messages.map((m) => [m.role, m.content[0]?.text])).toEqual([
      ["assistant", undefined],
      ["user", "keep me"],
      ["assistant", "answered after all"],
    ]);
  });

  it("runs the model's tool calls and feeds the results back before the final answer", async () => {
    const session = await createSession();
    await script(
      session,
      {
        toolCalls: [
          { id: "c1", name: "slowEcho", arguments: { text: "one", ms: 30 } },
          { id: "c2", name: "slowEcho", arguments: { text: "two", ms: 3 } },
        ],
      },
      { text: "Both echoed." },
    );
    const events = await openEvents(session);
    await send(session, "echo twice");
    const seen = await events.until("runEnd");
    const forC1 = seen.filter((e) => e.json.toolCallId === "c1").map((e) => e.event);
    expect(forC1[0]).toBe("toolExecStart");
    expect(forC1).toContain("toolExecUpdate");
    expect(forC1.at(-1)).toBe("toolExecEnd");

    const requests = await llmRequests(session);
    expect(requests).toHaveLength(2);
    const second = requests[1]!.body.messages;
    expect(second.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool"]);
    expect(second.slice(3).map((m) => m.tool_call_id)).toEqual(["c1", "c2"]);
    expect(second[3]!.content).toBe("echo: one");
    expect((await nextResponse(session)).content).toEqual([{ type: "text", text: "Both echoed." }]);

    const snapshot = (await (await api(`/v1/sessions/${session.id}`, { key: session.key })).json()) as {
      messages: { role: string }[];
      status: string;
    };
    expect(snapshot.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "toolResult", "assistant"]);
    expect(snapshot.status).toBe("idle");
    await events.cancel();
  });

  it("keeps no tool-journal rows once a run with tool calls has ended (the journal is bounded by one run)", async () => {
    const session = await createSession();
    await script(
      session,
      { toolCalls: [{ id: "c1", name: "slowEcho", arguments: { text: "one", ms: 1 } }] },
      { toolCalls: [{ id: "c2", name: "slowEcho", arguments: { text: "two", ms: 1 } }] },
      { text: "Done." },
    );
    await send(session, "echo");
    expect((await nextResponse(session)).content).toEqual([{ type: "text", text: "Done." }]);
    const stub = env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(session.id));
    const rows = await runInDurableObject(
      stub,
      (_instance, state) => state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM tool_call_journal`).one().n,
    );
    expect(rows).toBe(0);
  });
});
