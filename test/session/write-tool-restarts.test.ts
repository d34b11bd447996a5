/**
 * A session's drafts across a restart of its object: the session that wrote a tool gets it back as it
 * starts, one that wrote none does not look in the index at all, and one from before that was recorded
 * (its schema one version older) keeps looking. abortAllDurableObjects() resets every object in this
 * Worker, so the file runs in the "workers-restarts" project.
 */
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { indexKey, sourceKey, specKey } from "../../src/tools/written/tool-index.ts";
import type { WrittenToolEntry, WrittenToolSpec } from "../../src/tools/written/spec.ts";
import { nextResponse, script, send, snapshotOf, type TestSession, createSession, stubOf } from "./support.ts";
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

/** A session that wrote the adder `name` through writeTool, as a model would. */
async function sessionThatWrote(name: string): Promise<TestSession> {
  const session = await createSession();
  await script(session, writeToolReply("w1", adderInput(name)), { text: "written" });
  await send(session, "write an adder");
  await approveWriteTool(session);
  await nextResponse(session);
  expect((await snapshotOf(session)).tools).toContain(name);
  return session;
}

describe("drafts across a restart", () => {
  it("come back to the session that wrote them, callable", async () => {
    const name = uniqueName("adder");
    const session = await sessionThatWrote(name);
    await abortAllDurableObjects();
    expect((await snapshotOf(session)).tools).toContain(name);
    await script(session, callReply("c1", name, { a: 2, b: 3 }), { text: "5" });
    await send(session, "add 2 and 3");
    await nextResponse(session);
    const call = (await toolResults(session)).find((m) => m.toolCallId === "c1");
    expect(call).toMatchObject({ toolName: name, isError: false });
    expect(textOf(call)).toBe("sum: 5");
  });

  it("are not looked for by a session that wrote none: a pending row naming it (forged here) stays out", async () => {
    const session = await createSession();
    const name = uniqueName("forged");
    const spec = { ...adderInput(name), parallel: false } as WrittenToolSpec;
    const entry: WrittenToolEntry = {
      name,
      version: 1,
      hash: "0".repeat(64),
      status: "pending",
      label: spec.label,
      description: spec.description,
      author: { sessionId: session.id },
      writtenAt: new Date().toISOString(),
      sourceKey: sourceKey(name, 1),
      specKey: specKey(name, 1),
    };
    await workerEnv.TOOL_SOURCE.put(entry.specKey, JSON.stringify(spec));
    await workerEnv.TOOL_INDEX.put(indexKey(name), JSON.stringify(entry));
    await abortAllDurableObjects();
    expect((await snapshotOf(session)).tools).not.toContain(name);
  });

  it("come back to a session stored before writing a tool was recorded", async () => {
    const name = uniqueName("legacy");
    const session = await sessionThatWrote(name);
    // As such a session was stored: no record of having written a tool, and the schema before step 8.
    await runInDurableObject(stubOf(session), (_instance, state) => {
      state.storage.sql.exec(`DELETE FROM meta WHERE key = 'wroteTools'`);
      state.storage.sql.exec(`UPDATE meta SET value = '7' WHERE key = 'schema_version'`);
      // Step 10 reads the events table as it was before it (one event a row).
      state.storage.sql.exec(`DROP TABLE events`);
      state.storage.sql.exec(`CREATE TABLE events (seq INTEGER PRIMARY KEY, type TEXT NOT NULL, json TEXT NOT NULL)`);
    });
    await abortAllDurableObjects();
    expect((await snapshotOf(session)).tools).toContain(name);
    const marked = await runInDurableObject(stubOf(session), (_instance, state) =>
      state.storage.sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'wroteTools'`).toArray(),
    );
    expect(marked).toEqual([{ value: "true" }]);
  });
});
