/**
 * Session ids at the router: only an id this Worker issued (its tag checks under SIGNING_SECRET) reaches a
 * Durable Object. Anything else, ids of the older unsigned shape and well-formed ids with a wrong tag
 * included, gets on every route exactly the 404 an unknown session gets, answered before `idFromName`, so
 * probing ids creates no object and no storage. Issued ids, idempotent creations' ids and (in
 * test/subagents) sub-agent children's ids pass.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../src/http/app.ts";
import { issueSessionId, SESSION_ID_PATTERN } from "../../src/signing/session-ids.ts";
import { api, createSession } from "../session/support.ts";
import { retagged, type RouteProbe, sessionRouteProbes, UNKNOWN_SESSION_BODY } from "../support/session-routes.ts";

type Env = typeof env;

/** The app with a namespace that records every id it is asked to address. */
function recordingApp(overrides: Partial<Env> = {}) {
  const addressed: string[] = [];
  const ns = env.AGENT_SESSION;
  const AGENT_SESSION = {
    idFromName: (name: string) => {
      addressed.push(name);
      return ns.idFromName(name);
    },
    get: (id: DurableObjectId) => ns.get(id),
  };
  const call = (path: string, init: RequestInit = {}) =>
    app.fetch(new Request(`http://edge.test${path}`, init), { ...env, ...overrides, AGENT_SESSION });
  return { addressed, call };
}

/** The status and body a probe gets. */
async function answer(call: ReturnType<typeof recordingApp>["call"], { method, path, headers, body }: RouteProbe) {
  const res = await call(path, { method, headers, body });
  return { status: res.status, body: await res.text() };
}

const get = (path: string): RouteProbe => ({ method: "GET", path, headers: {} });

describe("session ids in the router", () => {
  it("issues signed ids: s_, 22 characters of body and 16 of tag", async () => {
    const session = await createSession();
    expect(session.id).toMatch(SESSION_ID_PATTERN);
    expect((await api(`/v1/sessions/${session.id}`, { key: session.key })).status).toBe(200);
  });

  it("answers ids of no issued shape with 404 without addressing any Durable Object", async () => {
    const { addressed, call } = recordingApp();
    const probes = ["probe1", "s_short", `s_${"A".repeat(23)}`, `S_${"A".repeat(22)}`, `s_${"A".repeat(21)}!`, `s_${"A".repeat(39)}`];
    for (const id of probes) {
      for (const probe of sessionRouteProbes(encodeURIComponent(id)).slice(0, 5)) {
        const res = await answer(call, probe);
        expect(res.status, `${probe.method} ${probe.path}`).toBe(404);
        expect(JSON.parse(res.body).error.code).toBe("not_found");
      }
    }
    expect(addressed).toEqual([]);
  });

  it("answers a forged id on every route exactly as an unknown session, without addressing any object", async () => {
    // An id this Worker signed but never created a session under: the object is addressed and says unknown.
    const unknown = await issueSessionId(env);
    const issued = (await createSession()).id;
    const forged = [
      `s_${"A".repeat(22)}`, // the older, unsigned shape
      `s_${crypto.randomUUID().replaceAll("-", "").slice(0, 22)}`,
      retagged(issued), // a real session's body with a wrong tag
      retagged(unknown),
      `s_${"A".repeat(38)}`,
    ];
    const reference = recordingApp();
    const expected = [];
    for (const probe of sessionRouteProbes(unknown)) expected.push(await answer(reference.call, probe));
    expect(reference.addressed.length).toBeGreaterThan(0);
    for (const [i, probe] of sessionRouteProbes(unknown).entries()) {
      // An operator route asks for API_TOKEN (unset: this Worker runs as deployed) before it asks the session.
      const status = probe.operator ? 403 : 404;
      expect(expected[i]!.status, `${probe.method} ${probe.path}`).toBe(status);
      if (!probe.operator) expect(expected[i]!.body, `${probe.method} ${probe.path}`).toBe(UNKNOWN_SESSION_BODY);
    }

    const { addressed, call } = recordingApp();
    for (const id of forged) {
      for (const probe of sessionRouteProbes(id))
        expect(await answer(call, probe), `${probe.method} ${probe.path}`).toEqual({ status: 404, body: UNKNOWN_SESSION_BODY });
    }
    expect(addressed).toEqual([]);
  });

  it("accepts ids of the older shape only while LEGACY_SESSION_IDS_UNTIL is ahead", async () => {
    const legacy = `s_${"L".repeat(22)}`;
    const open = recordingApp({ LEGACY_SESSION_IDS_UNTIL: new Date(Date.now() + 86_400_000).toISOString() });
    expect((await answer(open.call, get(`/v1/sessions/${legacy}`))).status).toBe(404);
    expect(open.addressed).toEqual([legacy]);
    const closed = recordingApp({ LEGACY_SESSION_IDS_UNTIL: new Date(Date.now() - 1_000).toISOString() });
    expect(await answer(closed.call, get(`/v1/sessions/${legacy}`))).toEqual({ status: 404, body: UNKNOWN_SESSION_BODY });
    expect(closed.addressed).toEqual([]);
  });

  it("addresses the object for an issued id", async () => {
    const session = await createSession();
    const { addressed, call } = recordingApp();
    const res = await call(`/v1/sessions/${session.id}`, { headers: { authorization: `Bearer ${session.key}` } });
    expect(res.status).toBe(200);
    expect(addressed).toEqual([session.id]);
  });

  it("refuses every id, and creates no session, when the Worker runs as deployed without SIGNING_SECRET", async () => {
    const session = await createSession();
    const { addressed, call } = recordingApp({ SIGNING_SECRET: "" });
    expect(await answer(call, get(`/v1/sessions/${session.id}`))).toEqual({ status: 404, body: UNKNOWN_SESSION_BODY });
    const created = await call("/v1/sessions", { method: "POST" });
    expect(created.status).toBe(500);
    expect(await created.json()).toMatchObject({ error: { code: "misconfigured", message: expect.stringContaining("SIGNING_SECRET") } });
    expect(addressed).toEqual([]);
  });
});
