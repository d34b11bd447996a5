/**
 * Session ids at the router: only the shape newSessionId issues reaches a Durable Object. Anything else
 * is a 404 answered before `idFromName`, so probing ids creates no object and no storage.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../src/http/app.ts";
import { newSessionId, SESSION_ID_PATTERN } from "../../src/http/auth.ts";

/** The app with a namespace that records every id it is asked to address. */
function recordingApp() {
  const addressed: string[] = [];
  const ns = env.AGENT_SESSION;
  const AGENT_SESSION = {
    idFromName: (name: string) => {
      addressed.push(name);
      return ns.idFromName(name);
    },
    get: (id: DurableObjectId) => ns.get(id),
  };
  const call = (path: string, init: RequestInit = {}) => app.fetch(new Request(`http://edge.test${path}`, init), { ...env, AGENT_SESSION });
  return { addressed, call };
}

describe("session ids in the router", () => {
  it("issues ids of one shape: s_ and 22 base64url characters", () => {
    for (let i = 0; i < 50; i++) expect(newSessionId()).toMatch(SESSION_ID_PATTERN);
  });

  it("answers 404 for ids that were never issued without addressing any Durable Object", async () => {
    const { addressed, call } = recordingApp();
    const probes = ["probe1", "s_short", `s_${"A".repeat(23)}`, `S_${"A".repeat(22)}`, `s_${"A".repeat(21)}!`];
    for (const id of probes) {
      for (const [path, init] of [
        [`/v1/sessions/${encodeURIComponent(id)}`, {}],
        [`/v1/sessions/${encodeURIComponent(id)}/events`, {}],
        [
          `/v1/sessions/${encodeURIComponent(id)}/messages`,
          { method: "POST", headers: { "content-type": "application/json" }, body: '{"content":"hi"}' },
        ],
      ] as const) {
        const res = await call(path, init);
        expect(res.status, `${init.method ?? "GET"} ${path}`).toBe(404);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe("not_found");
      }
    }
    expect(addressed).toEqual([]);
  });

  it("still addresses the object for an id of the issued shape", async () => {
    const { addressed, call } = recordingApp();
    const id = newSessionId();
    expect((await call(`/v1/sessions/${id}`)).status).toBe(404);
    expect(addressed).toEqual([id]);
  });
});
