/**
 * Code mode (CODE_MODE = "true"): runCode runs the model's program in a Loader isolate; each
 * `tools.x()` is a nested call through the session's pipeline, with its own events and `<id>.<n>` ids.
 */
import { describe, expect, it } from "vitest";
import { api, createSession, llmRequests, openEvents, script, send, type SseEvent, type TestSession } from "../session/support.ts";

/** Runs one program as the model's only tool call, then a closing answer; returns the run's events. */
async function runProgram(s: TestSession, code: string, id = "c1"): Promise<SseEvent[]> {
  await script(s, { toolCalls: [{ id, name: "runCode", arguments: { code } }] }, { text: "done" });
  const events = await openEvents(s);
  await send(s, "run it");
  const seen = await events.until("runEnd");
  await events.cancel();
  return seen;
}

const endOf = (events: SseEvent[], id: string) => events.find((e) => e.event === "toolExecEnd" && e.json.toolCallId === id)!.json;
const textOf = (end: Record<string, unknown>) => (end.result as { content: { text: string }[] }).content.map((c) => c.text).join("");

describe("runCode", () => {
  it("runs chained nested calls through the pipeline, each with its own events, id and parent", async () => {
    const s = await createSession();
    const events = await runProgram(
      s,
      "const a = await tools.slowEcho({ text: 'a', ms: 0 });\nconst b = await tools.slowEcho({ text: a, ms: 0 });\nconsole.log('got', b, { n: 1 });\nreturn { a, b };",
    );
    const tools = events.filter((e) => e.event?.startsWith("toolExec"));
    expect(tools.map((e) => [e.event, e.json.toolCallId, e.json.parentToolCallId])).toEqual([
      ["toolExecStart", "c1", undefined],
      ["toolExecStart", "c1.1", "c1"],
      ["toolExecUpdate", "c1.1", "c1"],
      ["toolExecUpdate", "c1.1", "c1"],
      ["toolExecUpdate", "c1.1", "c1"],
      ["toolExecEnd", "c1.1", "c1"],
      ["toolExecStart", "c1.2", "c1"],
      ["toolExecUpdate", "c1.2", "c1"],
      ["toolExecUpdate", "c1.2", "c1"],
      ["toolExecUpdate", "c1.2", "c1"],
      ["toolExecEnd", "c1.2", "c1"],
      ["toolExecEnd", "c1", undefined],
    ]);
    expect(tools[1]!.json.arguments).toEqual({ text: "a", ms: 0 });
    const end = endOf(events, "c1");
    expect(end.isError).toBe(false);
    expect(JSON.parse(textOf(end))).toEqual({
      returned: { a: "echo: a", b: "echo: echo: a" },
      logs: ['got echo: echo: a {"n":1}'],
    });
    // The model saw one result: the program's, not the nested calls'.
    const second = (await llmRequests(s))[1]!.body.messages as { role: string }[];
    expect(second.filter((m) => m.role === "tool")).toHaveLength(1);
  });

  it("lists the session's tools as TypeScript signatures in its description", async () => {
    const s = await createSession();
    await runProgram(s, "return 1;");
    const tools = ((await llmRequests(s))[0]!.body as unknown as { tools: unknown }).tools as {
      function: { name: string; description: string };
    }[];
    const runCode = tools.find((t) => t.function.name === "runCode")!.function.description;
    expect(runCode).toContain("slowEcho(args: { text: string; ms?: number }): Promise<string>;");
    expect(runCode).toContain("listTools(args?: {}): Promise<string>;");
    expect(runCode).not.toContain("runCode(args");
  });

  it("runs calls awaited together in parallel, for tools that allow it", async () => {
    const s = await createSession();
    const events = await runProgram(
      s,
      "return await Promise.all([tools.slowEcho({ text: 'x', ms: 300 }), tools.slowEcho({ text: 'y', ms: 300 })]);",
    );
    const order = events
      .filter((e) => e.event === "toolExecStart" || e.event === "toolExecEnd")
      .map((e) => `${e.event}:${e.json.toolCallId}`);
    expect(order.indexOf("toolExecStart:c1.2")).toBeLessThan(order.indexOf("toolExecEnd:c1.1"));
    expect(JSON.parse(textOf(endOf(events, "c1"))).returned).toEqual(["echo: x", "echo: y"]);
  });

  it("rejects a failing tool's call with its error text, which the program can catch", async () => {
    const s = await createSession();
    const events = await runProgram(s, "try { await tools.boom(); } catch (e) { return 'caught: ' + e.message; }");
    expect(endOf(events, "c1.1").isError).toBe(true);
    expect(JSON.parse(textOf(endOf(events, "c1"))).returned).toBe("caught: boom went the tool");
  });

  it("holds a nested call to its tool's timeout", async () => {
    const s = await createSession();
    const events = await runProgram(s, "try { await tools.hangs(); return 'returned'; } catch (e) { return e.message; }");
    expect(endOf(events, "c1.1")).toMatchObject({ isError: true, parentToolCallId: "c1" });
    expect(JSON.parse(textOf(endOf(events, "c1"))).returned).toBe('Tool "hangs" timed out after 200 ms');
  });

  it("stops the program and its running calls when the run is aborted", async () => {
    const s = await createSession();
    await script(
      s,
      {
        toolCalls: [
          { id: "c1", name: "runCode", arguments: { code: "await tools.slowEcho({ text: 'slow', ms: 10000 }); return 'finished';" } },
        ],
      },
      { text: "done" },
    );
    const events = await openEvents(s);
    await send(s, "run it");
    await events.until("toolExecUpdate");
    expect((await api(`/v1/sessions/${s.id}/abort`, { method: "POST", key: s.key })).status).toBe(202);
    const rest = await events.until("runEnd");
    await events.cancel();
    expect(rest.at(-1)!.json.stopReason).toBe("aborted");
    expect(endOf(rest, "c1.1")).toMatchObject({ isError: true, parentToolCallId: "c1" });
    expect(endOf(rest, "c1").isError).toBe(true);
  });

  it("names the line of a syntax error", async () => {
    const s = await createSession();
    const events = await runProgram(s, "const x = 1;\nconst y = ;\nreturn x;");
    const end = endOf(events, "c1");
    expect(end.isError).toBe(true);
    expect(textOf(end)).toMatch(/^SyntaxError: .*\(line 2\)/);
  });

  it("refuses code that is not one function body", async () => {
    const s = await createSession();
    const events = await runProgram(s, "return 1; }); (async function () { return 2;");
    expect(textOf(endOf(events, "c1"))).toContain("SyntaxError");
  });

  it("names the line of a runtime throw, with the logs so far", async () => {
    const s = await createSession();
    const events = await runProgram(s, "console.log('before');\nconst o = null;\n\nreturn o.field;");
    const end = endOf(events, "c1");
    expect(end.isError).toBe(true);
    expect(textOf(end)).toMatch(/TypeError: .*\(line 4\)/);
    expect(textOf(end)).toContain("before");
  });

  it("stops an endless loop at the CPU limit, even one inside a try, and the session stays responsive", async () => {
    const s = await createSession();
    const events = await runProgram(s, "for (;;) { try { while (true) {} } catch {} }");
    const end = endOf(events, "c1");
    expect(end.isError).toBe(true);
    expect(textOf(end)).toContain("CPU limit");
    const snapshot = await api(`/v1/sessions/${s.id}`, { key: s.key });
    expect(snapshot.status).toBe(200);
    // A throw costs more than a step: catching stack overflows over and over also ends at the limit.
    const other = await createSession();
    const recursion = await runProgram(other, "function f() { try { return f(); } catch { return f(); } }\nreturn f();", "c2");
    expect(textOf(endOf(recursion, "c2"))).toContain("CPU limit");
  });

  it("has no network", async () => {
    const s = await createSession();
    const events = await runProgram(
      s,
      "try { const r = await fetch('http://127.0.0.1:9/'); return 'reached ' + r.status; } catch (e) { return 'blocked: ' + e.message; }",
    );
    expect(JSON.parse(textOf(endOf(events, "c1"))).returned).toMatch(/^blocked: /);
  });

  it("keeps nothing from one program to the next", async () => {
    const s = await createSession();
    await script(
      s,
      {
        toolCalls: [
          { id: "k1", name: "runCode", arguments: { code: "globalThis.kept = (globalThis.kept ?? 0) + 1; return globalThis.kept;" } },
        ],
      },
      {
        toolCalls: [
          { id: "k2", name: "runCode", arguments: { code: "globalThis.kept = (globalThis.kept ?? 0) + 1; return globalThis.kept;" } },
        ],
      },
      { text: "done" },
    );
    const events = await openEvents(s);
    await send(s, "run it twice");
    const seen = await events.until("runEnd");
    await events.cancel();
    expect(JSON.parse(textOf(endOf(seen, "k1"))).returned).toBe(1);
    expect(JSON.parse(textOf(endOf(seen, "k2"))).returned).toBe(1);
  });

  it("has no way to build code the instrumentation did not see", async () => {
    const s = await createSession();
    const events = await runProgram(s, "try { return new Function('return 1')(); } catch (e) { return 'refused: ' + e.message; }");
    expect(JSON.parse(textOf(endOf(events, "c1"))).returned).toMatch(/^refused: /);
  });

  it("lets a nested call wait for a person, and runs it once approved", async () => {
    const s = await createSession({ requireApproval: ["slowEcho"] });
    await script(
      s,
      { toolCalls: [{ id: "c1", name: "runCode", arguments: { code: "return await tools.slowEcho({ text: 'ok', ms: 0 });" } }] },
      { text: "done" },
    );
    const events = await openEvents(s);
    await send(s, "run it");
    const asked = (await events.until("toolApprovalRequired")).at(-1)!;
    expect(asked.json).toMatchObject({ toolCallId: "c1.1", toolName: "slowEcho", parentToolCallId: "c1" });
    const decided = await api(`/v1/sessions/${s.id}/tool-calls/c1.1/approval`, { method: "POST", key: s.key, json: { approve: true } });
    expect(decided.status).toBe(200);
    const rest = await events.until("runEnd");
    expect(JSON.parse(textOf(endOf(rest, "c1"))).returned).toBe("echo: ok");
    await events.cancel();
  });

  it("rejects a refused nested call with the refusal", async () => {
    const s = await createSession({ requireApproval: ["slowEcho"] });
    await script(
      s,
      {
        toolCalls: [
          {
            id: "c1",
            name: "runCode",
            arguments: { code: "try { await tools.slowEcho({ text: 'no' }); } catch (e) { return e.message; }" },
          },
        ],
      },
      { text: "done" },
    );
    const events = await openEvents(s);
    await send(s, "run it");
    await events.until("toolApprovalRequired");
    await api(`/v1/sessions/${s.id}/tool-calls/c1.1/approval`, { method: "POST", key: s.key, json: { approve: false } });
    const rest = await events.until("runEnd");
    expect(JSON.parse(textOf(endOf(rest, "c1"))).returned).toMatch(/Rejected/);
    await events.cancel();
  });
});
