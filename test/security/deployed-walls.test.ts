/**
 * The attacks of a hostile internet against a Worker run as deployed (`wrangler dev` without LOCAL_DEV,
 * API_TOKEN set, CORS_ORIGINS empty), from outside, as a black box: made-up session ids, a forged Host,
 * a foreign Origin, text/plain POSTs, secrets in URLs and guessed tokens.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startWranglerDev, type WranglerDev } from "../../support/wrangler-dev.ts";
import { errorOf, rawRequest, sqliteFiles } from "./support.ts";

const TOKEN = "sec-operator-token";
let dev: WranglerDev;
let session: { id: string; key: string };

const call = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
  rawRequest(dev.url, method, path, headers, body);
const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
const JSON_TYPE = { "content-type": "application/json" };

beforeAll(async () => {
  dev = await startWranglerDev({ local: false, vars: { API_TOKEN: TOKEN, ALLOW_ANONYMOUS_SESSIONS: "false", CORS_ORIGINS: "" } });
  const created = await call("POST", "/v1/sessions", bearer(TOKEN));
  expect(created.status).toBe(201);
  session = JSON.parse(created.body) as { id: string; key: string };
}, 90_000);

afterAll(async () => {
  await dev?.stop();
});

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(`--- wrangler dev output ---\n${dev?.logs() ?? "(not started)"}`));
});

describe("a Worker run as deployed, attacked from outside", () => {
  it("creates no storage for made-up session ids", async () => {
    const before = sqliteFiles(dev.persistTo);
    expect(before.length).toBeGreaterThan(0); // the session created above has its file
    for (let i = 1; i <= 20; i++) {
      const probe = await call("GET", `/v1/sessions/probe${i}`);
      expect(probe.status).toBe(404);
      expect((await call("POST", `/v1/sessions/probe${i}/messages`, JSON_TYPE, '{"content":"hi"}')).status).toBe(404);
    }
    expect(sqliteFiles(dev.persistTo)).toEqual(before);
  });

  it("is not opened by a forged Host: localhost, which neither skips the token nor the rate limit", async () => {
    for (const host of ["localhost", "127.0.0.1:8787", "[::1]"]) {
      expect((await call("POST", "/v1/sessions", { host })).status, host).toBe(401);
      expect((await call("GET", "/v1/tools/anyTool", { host })).status, host).toBe(401);
      expect((await call("POST", "/mcp", { host, ...JSON_TYPE, accept: "application/json, text/event-stream" }, "{}")).status, host).toBe(
        401,
      );
    }
    // wrangler.toml allows 10 session creations a minute per client; one was made in beforeAll.
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await call("POST", "/v1/sessions", { host: "localhost", ...bearer(TOKEN) })).status);
    expect(statuses.filter((s) => s === 201).length).toBeLessThanOrEqual(9);
    expect(statuses.at(-1)).toBe(429);
  });

  it("gives a foreign Origin no CORS grant on /v1 or /mcp", async () => {
    for (const path of ["/v1/sessions", "/mcp", `/v1/sessions/${session.id}/abort`]) {
      const preflight = await call("OPTIONS", path, {
        origin: "https://evil.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization",
      });
      expect(preflight.headers["access-control-allow-origin"], path).toBeUndefined();
    }
    const own = await call("OPTIONS", "/mcp", { origin: dev.url, "access-control-request-method": "POST" });
    expect(own.headers["access-control-allow-origin"]).toBe(dev.url);
  });

  it("answers 415 to text/plain and form POSTs on state-changing routes and acts on none", async () => {
    const routes = [
      `/v1/sessions/${session.id}/abort`,
      `/v1/sessions/${session.id}/continue`,
      `/v1/sessions/${session.id}/messages`,
      `/v1/sessions/${session.id}/tool-calls/call_1/approval`,
    ];
    for (const path of routes) {
      for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
        const res = await call("POST", path, { ...bearer(session.key), "content-type": type }, '{"content":"hi","approve":true}');
        expect(res.status, `${path} as ${type}`).toBe(415);
      }
    }
    const reject = await call("POST", "/v1/tools/anyTool/reject", { ...bearer(TOKEN), "content-type": "text/plain" }, '{"reason":"x"}');
    expect(reject.status).toBe(415);
    const snapshot = JSON.parse((await call("GET", `/v1/sessions/${session.id}`, bearer(session.key))).body) as {
      status: string;
      messages: unknown[];
    };
    expect(snapshot).toMatchObject({ status: "idle", messages: [] });
  });

  it("never takes a secret from the URL, except a session key on GET …/events", async () => {
    expect((await call("POST", `/v1/sessions?key=${TOKEN}`)).status).toBe(401);
    expect((await call("GET", `/v1/tools/anyTool?key=${TOKEN}`)).status).toBe(401);
    expect((await call("POST", `/mcp?key=${TOKEN}`, { ...JSON_TYPE, accept: "application/json, text/event-stream" }, "{}")).status).toBe(
      401,
    );
    expect((await call("GET", `/v1/sessions/${session.id}?key=${encodeURIComponent(session.key)}`)).status).toBe(404);
    const events = await fetch(`${dev.url}/v1/sessions/${session.id}/events?key=${encodeURIComponent(session.key)}`);
    expect(events.status).toBe(200);
    await events.body?.cancel();
  });

  it("counts guessed tokens: the 11th guess in a minute is refused with 429, and then the right one too", async () => {
    const guess = (token: string) => call("POST", "/v1/sessions", bearer(token));
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await guess(`guess-${i}`)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(403));
    expect(statuses[10]).toBe(429);
    const right = await guess(TOKEN);
    expect(right.status).toBe(429);
    expect(errorOf(right).code).toBe("rate_limited");
  });
});
