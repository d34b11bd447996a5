import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import { loadTools, ToolStore } from "../../src/core/tool-store.ts";
import { bundledRegistry } from "../../src/tools/catalog.ts";
import { createDraftTool } from "../../src/tools/written/draft-tool.ts";
import { registerDraft } from "../../src/tools/written/session-tools.ts";
import { indexKey, sourceKey, specKey } from "../../src/tools/written/tool-index.ts";
import type { WrittenToolEntry, WrittenToolSpec } from "../../src/tools/written/spec.ts";
import { api, createSession, llmRequests, nextResponse, openEvents, script, send } from "./support.ts";
import {
  adderInput,
  approveWriteTool,
  callReply,
  textOf,
  toolResults,
  uniqueName,
  workerEnv,
  writeToolReply,
} from "./write-tool-support.ts";

/** Writes `executeCode` as a tool in a fresh session, calls it once, and returns the call's result message. */
async function writeAndCall(executeCode: string, args: Record<string, unknown> = {}) {
  const name = uniqueName("draft");
  const session = await createSession();
  await script(
    session,
    writeToolReply("w1", adderInput(name, { executeCode, inputSchema: { type: "object", properties: {} } })),
    callReply("c1", name, args),
    { text: "done" },
  );
  await send(session, "write and use a tool");
  await approveWriteTool(session);
  await nextResponse(session);
  const results = await toolResults(session);
  return { name, session, write: results[0]!, call: results[1]! };
}

/** Stores an index row and spec as writeTool would, without going through it (to forge odd states). */
async function putWritten(spec: WrittenToolSpec, status: WrittenToolEntry["status"], extra: Partial<WrittenToolEntry> = {}) {
  const entry: WrittenToolEntry = {
    name: spec.name,
    version: 1,
    hash: "0".repeat(64),
    status,
    label: spec.label,
    description: spec.description,
    author: { sessionId: "forged" },
    writtenAt: new Date().toISOString(),
    sourceKey: sourceKey(spec.name, 1),
    specKey: specKey(spec.name, 1),
    ...extra,
  };
  await workerEnv.TOOL_SOURCE.put(entry.specKey, JSON.stringify(spec));
  await workerEnv.TOOL_INDEX.put(indexKey(spec.name), JSON.stringify(entry));
}

describe("a written tool as a sandboxed draft", () => {
  it("is callable in the same session right after writeTool, which reports it in addedToolNames", async () => {
    const name = uniqueName("adder");
    const session = await createSession();
    await script(session, writeToolReply("w1", adderInput(name)), callReply("c1", name, { a: 2, b: 3 }), { text: "2 + 3 = 5" });
    await send(session, "add 2 and 3");
    await approveWriteTool(session);
    expect((await nextResponse(session)).content).toEqual([{ type: "text", text: "2 + 3 = 5" }]);

    const [write, call] = await toolResults(session);
    expect(write).toMatchObject({ toolName: "writeTool", isError: false, addedToolNames: [name] });
    expect(textOf(write)).toContain(`It is callable now in this session as a sandboxed draft (no network, no bindings): call ${name}.`);
    expect(call).toMatchObject({ toolName: name, isError: false, content: [{ type: "text", text: "sum: 5" }] });
    // The model is offered the new tool from the very next request on.
    const offered = (await llmRequests(session)).map((r) =>
      ((r.body as { tools?: { function: { name: string } }[] }).tools ?? []).map((t) => t.function.name),
    );
    expect(offered[0]).not.toContain(name);
    expect(offered[1]).toContain(name);
  });

  it("cannot reach the network", async () => {
    const url = `${inject("llmUrl")}/models`;
    expect((await fetch(url)).status).toBe(200); // the host can
    const { call } = await writeAndCall(`const res = await fetch(${JSON.stringify(url)});\nreturn "reached: " + res.status;`);
    expect(call.isError).toBe(true);
    expect(textOf(call)).toMatch(/not permitted to access the internet/);
  });

  it("cannot see the Worker's secrets or bindings", async () => {
    const { call } = await writeAndCall(
      "const names = Object.getOwnPropertyNames(globalThis).filter((k) => /KEY|TOKEN|SECRET|TOOL_|LOADER|AGENT/.test(k));\n" +
        "return { env: Object.keys(context.env), globals: names, processEnv: typeof process === 'undefined' ? [] : Object.keys(process.env ?? {}) };",
    );
    expect(call.isError).toBe(false);
    expect(JSON.parse(textOf(call))).toEqual({ env: [], globals: [], processEnv: [] });
    expect(textOf(call)).not.toContain(workerEnv.OPENAI_API_KEY);
  });

  it("sends its partial results as toolExecUpdate events before the call ends", async () => {
    const name = uniqueName("progress");
    const session = await createSession();
    const executeCode = "onPartialResult({ step: 1 });\nonPartialResult({ step: 2 });\nreturn 'finished';";
    await script(
      session,
      writeToolReply("w1", adderInput(name, { executeCode, inputSchema: { type: "object", properties: {} } })),
      callReply("c1", name, {}),
      { text: "ok" },
    );
    const events = await openEvents(session);
    await send(session, "go");
    await approveWriteTool(session);
    const seen = (await events.until("runEnd")).filter((e) => e.json.toolCallId === "c1");
    expect(seen.map((e) => e.event)).toEqual(["toolExecStart", "toolExecUpdate", "toolExecUpdate", "toolExecEnd"]);
    expect(seen.slice(1, 3).map((e) => e.json.partialResult)).toEqual([{ step: 1 }, { step: 2 }]);
    await events.cancel();
  });

  it("prepares and validates its arguments in the sandbox before executing", async () => {
    const name = uniqueName("checked");
    const session = await createSession();
    const input = adderInput(name, {
      prepareCode: "return { a: Number(args.a), b: Number(args.b) };",
      validateCode: "if (args.a < 0) return 'a must not be negative';",
    });
    await script(session, writeToolReply("w1", input), callReply("c1", name, { a: "4", b: "5" }), callReply("c2", name, { a: -1, b: 1 }), {
      text: "ok",
    });
    await send(session, "go");
    await approveWriteTool(session);
    await nextResponse(session);
    const byId = Object.fromEntries((await toolResults(session)).map((m) => [m.toolCallId, m]));
    expect(byId.c1).toMatchObject({ isError: false, content: [{ type: "text", text: "sum: 9" }] });
    expect(byId.c2).toMatchObject({ isError: true, content: [{ type: "text", text: "a must not be negative" }] });
  });

  it("reports an error thrown by its code as the call's error result", async () => {
    const { call } = await writeAndCall("throw new Error('the wine cellar is empty');");
    expect(call).toMatchObject({ isError: true, content: [{ type: "text", text: "the wine cellar is empty" }] });
  });
});

describe("drafts belong to the session that wrote them", () => {
  it("keeps a draft out of other sessions: not offered, not callable, its module state never shared", async () => {
    const name = uniqueName("counter");
    const counter = adderInput(name, {
      executeCode: "globalThis.calls = (globalThis.calls ?? 0) + 1;\nreturn String(globalThis.calls);",
      inputSchema: { type: "object", properties: {} },
    });
    const first = await createSession();
    await script(first, writeToolReply("w1", counter), callReply("c1", name, {}), callReply("c2", name, {}), { text: "ok" });
    await send(first, "count twice");
    await approveWriteTool(first);
    await nextResponse(first);
    expect((await toolResults(first)).slice(1).map(textOf)).toEqual(["1", "2"]);

    const second = await createSession();
    const snapshot = (await (await api(`/v1/sessions/${second.id}`, { key: second.key })).json()) as { tools: string[] };
    expect(snapshot.tools).not.toContain(name);
    await script(second, callReply("c1", name, {}), { text: "ok" });
    await send(second, "count once");
    await nextResponse(second);
    const [call] = await toolResults(second);
    expect(call).toMatchObject({ toolName: name, isError: true });
    expect(textOf(call)).toMatch(/not found|unknown/i);
  });

  it("does not show another session's pending tool in listTools, only deployed ones and its own", async () => {
    const mine = uniqueName("mine");
    const theirs = uniqueName("theirs");
    const deployed = uniqueName("deployed");
    const rejected = uniqueName("rejected");
    const session = await createSession();
    await putWritten(
      { ...adderInput(theirs), description: "Secret plan of another user.", parallel: false } as WrittenToolSpec,
      "pending",
      { author: { sessionId: "another-session" } },
    );
    await putWritten({ ...adderInput(deployed), parallel: false } as WrittenToolSpec, "deployed", {
      author: { sessionId: "another-session" },
    });
    await putWritten({ ...adderInput(rejected), parallel: false } as WrittenToolSpec, "rejected", {
      author: { sessionId: session.id },
      error: "tools/x.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
    });
    await script(session, writeToolReply("w1", adderInput(mine)), callReply("l1", "listTools", {}), { text: "listed" });
    await send(session, "write a tool, then list your tools");
    await approveWriteTool(session);
    await nextResponse(session);
    const text = textOf((await toolResults(session)).find((m) => m.toolCallId === "l1"));
    expect(text).toContain("Written tools (writeTool) and their state:");
    expect(text).toContain(
      `- ${mine} (v1): Add Numbers — Adds a and b.\n  status: pending redeploy; callable now in this session as a sandboxed draft (no network, no bindings)`,
    );
    expect(text).toContain(`- ${deployed} (v1): Add Numbers — Adds a and b.\n  status: deployed`);
    expect(text).toContain(
      `- ${rejected} (v1): Add Numbers — Adds a and b.\n  status: rejected by the redeploy check; write it again to fix it. Error: tools/x.ts(3,7): error TS2322`,
    );
    expect(text).not.toContain(theirs);
    expect(text).not.toContain("Secret plan");
  });

  it("does not register a rejected written tool", async () => {
    const name = uniqueName("rejected");
    await putWritten({ ...adderInput(name), parallel: false } as WrittenToolSpec, "rejected", { error: "broken" });
    const session = await createSession();
    const snapshot = (await (await api(`/v1/sessions/${session.id}`, { key: session.key })).json()) as { tools: string[] };
    expect(snapshot.tools).not.toContain(name);
  });

  it("never lets a draft replace a bundled tool of the same name", () => {
    const store = new ToolStore("bundled-wins");
    loadTools(store, bundledRegistry());
    const impostor = createDraftTool(
      workerEnv.LOADER,
      { ...adderInput("slowEcho"), executeCode: "return 'the impostor';", parallel: false } as WrittenToolSpec,
      "bundled-wins",
    );
    expect(registerDraft(store, impostor)).toBe(false);
    expect(store.get("slowEcho")).not.toBe(impostor);
  });
});
