/**
 * Guardrails end to end, with the test Worker's fixture guardrails (test/worker/fixture-guardrails.ts) and
 * the scripted mock model: input trips before any model request; an output trip in the middle of a
 * stream leaves no subscriber (live SSE, /chat, a replay after the fact, the snapshot) any forbidden text.
 */
import { describe, expect, it } from "vitest";
import { FORBIDDEN_INPUT, FORBIDDEN_OUTPUT, THROWING_INPUT } from "../worker/fixture-guardrails.ts";
import { api, createSession, llmRequests, openEvents, script, send, snapshotOf, type TestSession } from "./support.ts";

const STREAMED = `Here is a safe beginning of the answer and then ${FORBIDDEN_OUTPUT} followed by more words that never show`;

async function runToEnd(session: TestSession, text: string, kind: "messages" | "follow-ups" = "messages") {
  const events = await openEvents(session);
  expect((await send(session, text, kind)).status).toBe(202);
  const seen = await events.until("runEnd");
  await events.cancel();
  return seen;
}

describe("input guardrails", () => {
  it("refuse a message before any model request carries it: guardrailTripped, stopReason guardrail", async () => {
    const session = await createSession();
    await script(session, { text: "must never be asked for" });
    const seen = await runToEnd(session, `tell me ${FORBIDDEN_INPUT}`);
    expect(seen.find((e) => e.event === "guardrailTripped")?.json).toMatchObject({ guardrail: "blockInput", stage: "input" });
    expect(seen.at(-1)?.json).toMatchObject({ type: "runEnd", stopReason: "guardrail" });
    expect(await llmRequests(session)).toHaveLength(0);
    // Never stored: a later run cannot send it either.
    await runToEnd(session, "hello again");
    const history = JSON.stringify((await snapshotOf(session)).messages);
    expect(history).not.toContain(FORBIDDEN_INPUT);
    expect(history).toContain("hello again");
  });

  it("fail closed: a guardrail that throws trips", async () => {
    const session = await createSession();
    await script(session, { text: "must never be asked for" });
    const seen = await runToEnd(session, `check ${THROWING_INPUT}`);
    expect(seen.find((e) => e.event === "guardrailTripped")?.json).toMatchObject({
      guardrail: "throwsOnInput",
      stage: "input",
      reason: expect.stringContaining("the checking service is down"),
    });
    expect(await llmRequests(session)).toHaveLength(0);
  });

  it("see follow-ups too", async () => {
    const session = await createSession();
    await script(session, { text: "must never be asked for" });
    await runToEnd(session, `a follow-up with ${FORBIDDEN_INPUT}`, "follow-ups");
    expect(await llmRequests(session)).toHaveLength(0);
  });
});

describe("output guardrails", () => {
  it("stop a stream mid-answer: no live or replayed event, no stored message carries the forbidden text", async () => {
    const session = await createSession();
    await script(session, { text: STREAMED, chunkDelayMs: 5 });
    const seen = await runToEnd(session, "say it");
    const deltas = seen.filter((e) => e.event === "messageDelta").map((e) => String(e.json.text));
    expect(deltas.join("")).toContain("safe beginning");
    for (const e of seen) expect(e.data).not.toContain(FORBIDDEN_OUTPUT);
    expect(seen.map((e) => e.event)).toContain("messageAbandoned");
    expect(seen.find((e) => e.event === "guardrailTripped")?.json).toMatchObject({ guardrail: "blockOutput", stage: "output" });
    expect(seen.at(-1)?.json).toMatchObject({ type: "runEnd", stopReason: "guardrail" });

    const replay = await openEvents(session, 0);
    const replayed = await replay.until("runEnd");
    await replay.cancel();
    expect(replayed.length).toBeGreaterThan(3);
    for (const e of replayed) expect(e.data).not.toContain(FORBIDDEN_OUTPUT);
    expect(JSON.stringify(await snapshotOf(session))).not.toContain(FORBIDDEN_OUTPUT);
    expect(JSON.stringify(await snapshotOf(session))).not.toContain("never show");
  });

  it("hold it from /chat as well", async () => {
    const session = await createSession();
    await script(session, { text: STREAMED, chunkDelayMs: 5 });
    const res = await api(`/v1/sessions/${session.id}/chat`, {
      method: "POST",
      key: session.key,
      json: { messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "say it" }] }] },
    });
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain("safe");
    expect(body).not.toContain(FORBIDDEN_OUTPUT);
    expect(body).toContain("content-filter");
  });

  it("check an answer that arrives whole as well", async () => {
    const session = await createSession();
    await script(session, { text: `short ${FORBIDDEN_OUTPUT}` });
    const seen = await runToEnd(session, "say it");
    for (const e of seen) expect(e.data).not.toContain(FORBIDDEN_OUTPUT);
    expect(seen.at(-1)?.json).toMatchObject({ type: "runEnd", stopReason: "guardrail" });
  });
});
