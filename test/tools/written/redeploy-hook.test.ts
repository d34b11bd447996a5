import { describe, expect, it } from "vitest";
import { requestRedeploy } from "../../../src/tools/written/redeploy-hook.ts";
import type { WrittenToolEntry } from "../../../src/tools/written/spec.ts";

const entry = { name: "addNumbers", version: 2, hash: "ab12" } as WrittenToolEntry;

type Seen = { url: string; init: RequestInit };
const recordingFetch = (status: number, seen: Seen[]): typeof fetch =>
  (async (url: string | URL | Request, init?: RequestInit) => {
    seen.push({ url: String(url), init: init ?? {} });
    return new Response(status === 204 ? null : "ok", { status });
  }) as typeof fetch;

describe("the redeploy hook", () => {
  it("is not called without REDEPLOY_HOOK_URL, and says an operator must redeploy", async () => {
    const seen: Seen[] = [];
    expect(await requestRedeploy({}, entry, recordingFetch(200, seen))).toEqual({
      requested: false,
      reason: "no REDEPLOY_HOOK_URL is configured: an operator must run `npm run redeploy`",
    });
    expect(seen).toEqual([]);
  });

  it("is not called unauthenticated when the secret is missing", async () => {
    const seen: Seen[] = [];
    const outcome = await requestRedeploy({ REDEPLOY_HOOK_URL: "https://hook.example/x" }, entry, recordingFetch(200, seen));
    expect(outcome).toMatchObject({ requested: false, reason: expect.stringMatching(/REDEPLOY_HOOK_SECRET is not/) });
    expect(seen).toEqual([]);
  });

  it("POSTs the tool's name, version and hash with the shared secret as a bearer token", async () => {
    const seen: Seen[] = [];
    const outcome = await requestRedeploy(
      { REDEPLOY_HOOK_URL: "https://hook.example/x", REDEPLOY_HOOK_SECRET: "s3cret" },
      entry,
      recordingFetch(204, seen),
    );
    expect(outcome).toEqual({ requested: true, status: 204 });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe("https://hook.example/x");
    expect(seen[0]!.init.method).toBe("POST");
    expect((seen[0]!.init.headers as Record<string, string>).authorization).toBe("Bearer s3cret");
    expect(JSON.parse(String(seen[0]!.init.body))).toEqual({
      event_type: "redeploy-tools",
      client_payload: { name: "addNumbers", version: 2, hash: "ab12" },
    });
  });

  it("reports a hook that answers with an error status", async () => {
    const outcome = await requestRedeploy(
      { REDEPLOY_HOOK_URL: "https://hook.example/x", REDEPLOY_HOOK_SECRET: "s" },
      entry,
      recordingFetch(500, []),
    );
    expect(outcome).toEqual({ requested: false, reason: "the redeploy hook answered HTTP 500: an operator must run `npm run redeploy`" });
  });

  it("reports a hook that cannot be reached", async () => {
    const failing = (async () => {
      throw new Error("connection refused");
    }) as typeof fetch;
    const outcome = await requestRedeploy({ REDEPLOY_HOOK_URL: "https://hook.example/x", REDEPLOY_HOOK_SECRET: "s" }, entry, failing);
    expect(outcome).toEqual({
      requested: false,
      reason: "the redeploy hook failed (connection refused): an operator must run `npm run redeploy`",
    });
  });
});
