/**
 * State-changing routes read only JSON bodies: a form or text/plain POST (what a foreign page can send
 * without a CORS preflight) is a 415 and changes nothing. Routes without a body accept an empty one.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../src/http/app.ts";
import { api, createSession, snapshotOf } from "../session/support.ts";

const TOKEN = "op-token";
const call = (path: string, init: RequestInit = {}) =>
  app.fetch(new Request(`http://edge.test${path}`, init), { ...env, API_TOKEN: TOKEN });

const FOREIGN_BODIES: { type: string; body: string }[] = [
  { type: "text/plain", body: '{"content":"hi","approve":true,"reason":"x"}' },
  { type: "text/plain;charset=UTF-8", body: "" },
  { type: "application/x-www-form-urlencoded", body: "content=hi&approve=true" },
  { type: "multipart/form-data; boundary=x", body: "--x--" },
];

describe("JSON-only state-changing routes", () => {
  it("answers 415 to a text or form body on every session route, and queues nothing", async () => {
    const s = await createSession();
    const routes = [
      ["POST", `/v1/sessions/${s.id}/messages`],
      ["POST", `/v1/sessions/${s.id}/follow-ups`],
      ["POST", `/v1/sessions/${s.id}/continue`],
      ["POST", `/v1/sessions/${s.id}/abort`],
      ["POST", `/v1/sessions/${s.id}/chat`],
      ["POST", `/v1/sessions/${s.id}/tool-calls/call_1/approval`],
      ["PATCH", `/v1/sessions/${s.id}`],
      ["POST", `/v1/sessions/${s.id}/schedules`],
      ["DELETE", `/v1/sessions/${s.id}/schedules/00000000-0000-4000-8000-000000000000`],
      ["DELETE", `/v1/sessions/${s.id}`],
    ] as const;
    for (const [method, path] of routes) {
      for (const { type, body } of FOREIGN_BODIES) {
        const res = await call(path, { method, headers: { "content-type": type, authorization: `Bearer ${s.key}` }, body });
        expect(res.status, `${method} ${path} as ${type}`).toBe(415);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe("unsupported_media_type");
      }
    }
    const snapshot = await snapshotOf(s);
    expect(snapshot.status).toBe("idle");
    expect(snapshot.messages.filter((m) => m.role === "user")).toEqual([]);
  });

  it("answers 415 to a text body on session creation and on the operator's reject", async () => {
    for (const path of ["/v1/sessions", "/v1/tools/someTool/reject"]) {
      const res = await call(path, {
        method: "POST",
        headers: { "content-type": "text/plain", authorization: `Bearer ${TOKEN}` },
        body: '{"reason":"x"}',
      });
      expect(res.status, path).toBe(415);
    }
  });

  it("accepts an empty body, or an empty JSON object, on routes that take none", async () => {
    const s = await createSession();
    const auth = { authorization: `Bearer ${s.key}` };
    expect((await api(`/v1/sessions/${s.id}/abort`, { method: "POST", key: s.key })).status).toBe(202);
    expect(
      (await call(`/v1/sessions/${s.id}/abort`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: "{}" }))
        .status,
    ).toBe(202);
    const extra = await call(`/v1/sessions/${s.id}/abort`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: '{"x":1}',
    });
    expect(extra.status).toBe(400);
  });

  it("answers 400 naming the problem for a JSON body that does not parse", async () => {
    const s = await createSession();
    const res = await call(`/v1/sessions/${s.id}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${s.key}` },
      body: "{oops",
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe("Body is not valid JSON");
  });
});
