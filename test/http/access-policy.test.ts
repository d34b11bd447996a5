import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../src/http/app.ts";
import { isLocalWorker } from "../../src/http/access-policy.ts";
import { RATE_LIMIT_PERIOD_SECONDS } from "../../src/http/rate-limit.ts";

type ErrorBody = { error: { code: string; message: string } };

/** The real app and bindings, answering at `origin`, with some settings replaced. */
const at =
  (origin: string, settings: Record<string, unknown> = {}) =>
  (path: string, init: RequestInit = {}) =>
    app.fetch(new Request(`${origin}${path}`, init), { ...env, ...settings });

const DEPLOYED = "https://agent.example.workers.dev";
const locked = { ALLOW_ANONYMOUS_SESSIONS: "false", API_TOKEN: undefined };
/** What `npm start` passes (`--var LOCAL_DEV:true`). */
const local = { LOCAL_DEV: "true" };
const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

describe("what counts as local", () => {
  it('is local only when LOCAL_DEV is exactly "true"', () => {
    expect(isLocalWorker({ LOCAL_DEV: "true" })).toBe(true);
    for (const value of [undefined, "", "false", "1", "TRUE ", "yes"]) expect(isLocalWorker({ LOCAL_DEV: value })).toBe(false);
  });

  it("treats a request with Host localhost as deployed when LOCAL_DEV is unset", async () => {
    for (const origin of ["http://localhost:8787", "http://127.0.0.1:8787", "http://[::1]:8787"]) {
      expect((await at(origin, locked)("/v1/sessions", { method: "POST" })).status).toBe(403);
      expect((await at(origin, locked)("/v1/tools/noSuchTool")).status).toBe(403);
      expect((await at(origin, locked)("/mcp", { method: "POST" })).status).toBe(403);
    }
  });
});

describe("session creation on a deployed Worker", () => {
  it("refuses anonymous sessions without API_TOKEN, naming what to set", async () => {
    const res = await at(DEPLOYED, locked)("/v1/sessions", { method: "POST" });
    expect(res.status).toBe(403);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe("forbidden");
    expect(body.error.message).toContain("wrangler secret put API_TOKEN");
    expect(body.error.message).toContain('ALLOW_ANONYMOUS_SESSIONS="true"');
  });

  it("stays open under LOCAL_DEV without API_TOKEN, for npm start, whatever the host", async () => {
    for (const origin of ["http://localhost:8787", "http://192.168.1.20:8787", DEPLOYED]) {
      expect((await at(origin, { ...locked, ...local })("/v1/sessions", { method: "POST" })).status).toBe(201);
    }
  });

  it("lets anyone create sessions when the owner sets ALLOW_ANONYMOUS_SESSIONS to true", async () => {
    const res = await at(DEPLOYED, { ALLOW_ANONYMOUS_SESSIONS: "true", API_TOKEN: undefined })("/v1/sessions", { method: "POST" });
    expect(res.status).toBe(201);
  });

  it("asks for the token with a 401 when API_TOKEN is set and none is sent, and accepts it", async () => {
    const call = at(DEPLOYED, { ...locked, API_TOKEN: "owner-token" });
    const missing = await call("/v1/sessions", { method: "POST" });
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as ErrorBody).error.message).toContain("Authorization: Bearer <API_TOKEN>");
    expect((await call("/v1/sessions", { method: "POST", headers: { authorization: "Bearer owner-token" } })).status).toBe(201);
  });
});

describe("operator routes", () => {
  it("refuse a deployed Worker's operator routes when no API_TOKEN is configured, naming it", async () => {
    const res = await at(DEPLOYED, locked)("/v1/tools/noSuchTool");
    expect(res.status).toBe(403);
    expect(((await res.json()) as ErrorBody).error.message).toContain("API_TOKEN");
  });

  it("stay open under LOCAL_DEV without API_TOKEN", async () => {
    expect((await at("http://localhost:8787", { ...locked, ...local })("/v1/tools/noSuchTool")).status).toBe(404);
  });
});

describe("rate limits (Workers Rate Limiting binding)", () => {
  const tight = { SESSION_RATE_LIMIT: env.TIGHT_RATE_LIMIT, MESSAGE_RATE_LIMIT: env.TIGHT_RATE_LIMIT };

  it("answers 429 with Retry-After once a client used up its session allowance", async () => {
    const call = at(DEPLOYED, tight);
    const create = () => call("/v1/sessions", { method: "POST", headers: { "cf-connecting-ip": "203.0.113.10" } });
    for (let i = 0; i < 3; i++) expect((await create()).status).toBe(201);
    const refused = await create();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe(String(RATE_LIMIT_PERIOD_SECONDS));
    expect(((await refused.json()) as ErrorBody).error).toMatchObject({ code: "rate_limited" });
  });

  it("counts each client separately", async () => {
    const call = at(DEPLOYED, tight);
    for (let i = 0; i < 4; i++) await call("/v1/sessions", { method: "POST", headers: { "cf-connecting-ip": "203.0.113.20" } });
    const other = await call("/v1/sessions", { method: "POST", headers: { "cf-connecting-ip": "203.0.113.21" } });
    expect(other.status).toBe(201);
  });

  it("limits the messages a client sends, and stores none it refused", async () => {
    const ip = { "cf-connecting-ip": "203.0.113.30" };
    const created = (await (await at(DEPLOYED)("/v1/sessions", { method: "POST", headers: ip })).json()) as { id: string; key: string };
    const call = at(DEPLOYED, tight);
    const auth = { ...ip, authorization: `Bearer ${created.key}` };
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await call(`/v1/sessions/${created.id}/follow-ups`, json({ content: `m${i}` }, auth))).status);
    expect(statuses).toEqual([202, 202, 202, 429]);
    // Accepted messages are either queued or already in history; the refused one is in neither.
    const snapshot = (await (await call(`/v1/sessions/${created.id}`, { headers: auth })).json()) as {
      messages: { role: string }[];
      queues: { input: number; followUp: number };
    };
    const users = snapshot.messages.filter((m) => m.role === "user").length;
    expect(users + snapshot.queues.input + snapshot.queues.followUp).toBe(3);
    expect(JSON.stringify(snapshot.messages)).not.toContain('"m3"');
  });

  it("limits /chat and /continue with the message allowance too", async () => {
    const ip = { "cf-connecting-ip": "203.0.113.50" };
    const created = (await (await at(DEPLOYED)("/v1/sessions", { method: "POST", headers: ip })).json()) as { id: string; key: string };
    const call = at(DEPLOYED, tight);
    const auth = { ...ip, authorization: `Bearer ${created.key}` };
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await call(`/v1/sessions/${created.id}/continue`, { method: "POST", headers: auth })).status);
    const chat = await call(
      `/v1/sessions/${created.id}/chat`,
      json({ messages: [{ role: "user", parts: [{ type: "text", text: "hi" }] }] }, auth),
    );
    statuses.push(chat.status);
    // The first /continue finds nothing to continue (409); all three count, so /chat is the fourth.
    expect(statuses).toEqual([409, 409, 409, 429]);
  });

  it("keys an IPv6 client on its /64 and an IPv4 client on its full address", async () => {
    const call = at(DEPLOYED, tight);
    const create = (ip: string) => call("/v1/sessions", { method: "POST", headers: { "cf-connecting-ip": ip } });
    const sameBlock = ["2001:db8:7:1::1", "2001:db8:7:1:ffff::2", "2001:0db8:0007:0001:0:0:0:3", "[2001:db8:7:1::4]"];
    expect(await Promise.all(sameBlock.map(async (ip) => (await create(ip)).status))).toEqual([201, 201, 201, 429]);
    expect((await create("2001:db8:7:2::1")).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await create("198.51.100.7")).status).toBe(201);
    expect((await create("198.51.100.8")).status).toBe(201);
  });

  it("counts wrong API tokens per client and then refuses that client's tokens, even the right one", async () => {
    const call = at(DEPLOYED, { ...tight, ...locked, API_TOKEN: "owner-token" });
    const attempt = (ip: string, token: string) =>
      call("/v1/sessions", { method: "POST", headers: { "cf-connecting-ip": ip, authorization: `Bearer ${token}` } });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await attempt("203.0.113.60", `guess-${i}`)).status);
    expect(statuses).toEqual([403, 403, 403, 429]);
    const right = await attempt("203.0.113.60", "owner-token");
    expect(right.status).toBe(429);
    expect(right.headers.get("retry-after")).toBe(String(RATE_LIMIT_PERIOD_SECONDS));
    expect((await attempt("203.0.113.61", "owner-token")).status).toBe(201);
  });

  it("counts wrong session keys per client", async () => {
    const created = (await (await at(DEPLOYED)("/v1/sessions", { method: "POST" })).json()) as { id: string; key: string };
    const call = at(DEPLOYED, tight);
    const read = (key: string) =>
      call(`/v1/sessions/${created.id}`, { headers: { "cf-connecting-ip": "203.0.113.70", authorization: `Bearer ${key}` } });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await read(`sk_wrong${i}`)).status);
    expect(statuses).toEqual([404, 404, 404, 429]);
    expect((await read(created.key)).status).toBe(429);
  });

  it("does not limit requests under LOCAL_DEV", async () => {
    const call = at("http://localhost:8787", { ...tight, ...local });
    for (let i = 0; i < 5; i++)
      expect((await call("/v1/sessions", { method: "POST", headers: { "cf-connecting-ip": "203.0.113.40" } })).status).toBe(201);
  });
});

describe("CORS", () => {
  const preflight = (origin: string) => ({ method: "OPTIONS", headers: { origin, "access-control-request-method": "POST" } });

  it('allows every origin when CORS_ORIGINS is "*"', async () => {
    const res = await at(DEPLOYED, { CORS_ORIGINS: "*" })("/v1/sessions", preflight("https://other.example"));
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("credentials in URLs", () => {
  const call = at(DEPLOYED, { API_TOKEN: "owner-token", ALLOW_ANONYMOUS_SESSIONS: "false" });
  const create = async () =>
    (await (await call("/v1/sessions", { method: "POST", headers: { authorization: "Bearer owner-token" } })).json()) as {
      id: string;
      key: string;
    };

  it("never takes API_TOKEN from ?key=, on session creation, operator routes or /mcp", async () => {
    expect((await call("/v1/sessions?key=owner-token", { method: "POST" })).status).toBe(401);
    expect((await call("/v1/tools/noSuchTool?key=owner-token")).status).toBe(401);
    const mcp = await call("/mcp?key=owner-token", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{}",
    });
    expect(mcp.status).toBe(401);
  });

  it("takes a session key from ?key= on GET …/events only", async () => {
    const s = await create();
    const q = `?key=${encodeURIComponent(s.key)}`;
    expect((await call(`/v1/sessions/${s.id}${q}`)).status).toBe(404);
    expect((await call(`/v1/sessions/${s.id}/messages${q}`, json({ content: "hi" }))).status).toBe(404);
    expect((await call(`/v1/sessions/${s.id}/abort${q}`, { method: "POST" })).status).toBe(404);
    const events = await call(`/v1/sessions/${s.id}/events${q}`);
    expect(events.status).toBe(200);
    expect(events.headers.get("content-type")).toContain("text/event-stream");
    await events.body?.cancel();
  });
});

describe("one CORS policy for every route", () => {
  const preflight = (origin: string) => ({
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
  });
  const simplePost = (origin: string) => ({
    method: "POST",
    headers: { origin, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: "{}",
  });

  it("gives a foreign origin no CORS grant on /mcp or /v1 when CORS_ORIGINS is empty, even locally", async () => {
    const call = at("http://localhost:8787", { CORS_ORIGINS: "", LOCAL_DEV: "true" });
    for (const path of ["/mcp", "/v1/sessions"]) {
      expect((await call(path, preflight("https://evil.example"))).headers.get("access-control-allow-origin"), path).toBeNull();
      expect((await call(path, simplePost("https://evil.example"))).headers.get("access-control-allow-origin"), path).toBeNull();
      expect((await call(path, preflight("http://localhost:8787"))).headers.get("access-control-allow-origin"), path).toBe(
        "http://localhost:8787",
      );
    }
  });

  it('reads CORS_ORIGINS the same way on /mcp and /v1: a list, or "*" for every origin', async () => {
    const listed = at(DEPLOYED, { CORS_ORIGINS: "https://good.example" });
    const star = at(DEPLOYED, { CORS_ORIGINS: "*" });
    for (const path of ["/mcp", "/v1/sessions"]) {
      expect((await listed(path, preflight("https://good.example"))).headers.get("access-control-allow-origin"), path).toBe(
        "https://good.example",
      );
      expect((await listed(path, preflight("https://evil.example"))).headers.get("access-control-allow-origin"), path).toBeNull();
      expect((await star(path, preflight("https://any.example"))).headers.get("access-control-allow-origin"), path).toBe("*");
    }
  });
});
