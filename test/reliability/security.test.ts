import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { constantTimeEqual, secretMatches } from "../../src/credentials.ts";
import { app } from "../../src/http/app.ts";
import { api, createSession } from "../session/support.ts";

/** The real app with extra configuration, as a deployment with these vars/secrets would run it. */
const withConfig =
  (extra: Record<string, string>) =>
  (path: string, init: RequestInit = {}) =>
    app.fetch(new Request(`http://edge.test${path}`, init), { ...env, ...extra });

describe("API_TOKEN", () => {
  const call = withConfig({ API_TOKEN: "t0ps3cret", ALLOW_ANONYMOUS_SESSIONS: "false" });

  it("guards session creation: 401 without the token, 403 with a wrong one, 201 with it", async () => {
    expect((await call("/v1/sessions", { method: "POST" })).status).toBe(401);
    expect((await call("/v1/sessions", { method: "POST", headers: { authorization: "Bearer nope" } })).status).toBe(403);
    const ok = await call("/v1/sessions", { method: "POST", headers: { authorization: "Bearer t0ps3cret" } });
    expect(ok.status).toBe(201);
  });

  it("guards the written-tool routes; the tool listing without it shows no drafts (test/http/tool-routes.test.ts)", async () => {
    expect((await call("/v1/tools/anyTool")).status).toBe(401);
    expect((await call("/v1/tools/anyTool/reject", { method: "POST" })).status).toBe(401);
    expect((await call("/v1/tools", { headers: { authorization: "Bearer t0ps3cret" } })).status).toBe(200);
  });

  it("does not let the API token open a session: sessions need their own key", async () => {
    const created = (await (await call("/v1/sessions", { method: "POST", headers: { authorization: "Bearer t0ps3cret" } })).json()) as {
      id: string;
    };
    expect((await call(`/v1/sessions/${created.id}`, { headers: { authorization: "Bearer t0ps3cret" } })).status).toBe(404);
  });
});

describe("session keys", () => {
  it("never returns a key or its hash in a snapshot", async () => {
    const s = await createSession();
    const text = await (await api(`/v1/sessions/${s.id}`, { key: s.key })).text();
    expect(text).not.toContain(s.key);
    expect(text).not.toMatch(/keyHash/);
  });

  it("compares secrets in constant time over digests", async () => {
    expect(constantTimeEqual("abc", "abc")).toBe(true);
    expect(constantTimeEqual("abc", "abd")).toBe(false);
    expect(constantTimeEqual("abc", "abcd")).toBe(false);
    expect(await secretMatches("k", "k")).toBe(true);
    expect(await secretMatches(undefined, "")).toBe(false);
  });
});

describe("CORS", () => {
  it("allows only the Worker's own origin by default, without credentials", async () => {
    const own = await withConfig({})("/v1/sessions", {
      method: "OPTIONS",
      headers: { origin: "http://edge.test", "access-control-request-method": "POST" },
    });
    expect(own.headers.get("access-control-allow-origin")).toBe("http://edge.test");
    expect(own.headers.get("access-control-allow-credentials")).toBeNull();
    expect(own.headers.get("access-control-allow-headers")).toContain("Authorization");
    const other = await withConfig({})("/v1/sessions", {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "POST" },
    });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("allows only the configured origins when CORS_ORIGINS is set", async () => {
    const call = withConfig({ CORS_ORIGINS: "https://good.example, https://also.example" });
    const good = await call("/v1/sessions", {
      method: "OPTIONS",
      headers: { origin: "https://good.example", "access-control-request-method": "POST" },
    });
    expect(good.headers.get("access-control-allow-origin")).toBe("https://good.example");
    const bad = await call("/v1/sessions", {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    expect(bad.headers.get("access-control-allow-origin")).toBeNull();
  });
});
