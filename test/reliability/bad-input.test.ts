/**
 * Hostile input on every route, generated with fast-check: wrong types, missing and unknown fields, huge
 * and deeply nested values, odd content types and ids. The answer is always a documented 4xx with the
 * `{error:{code,message}}` shape — never a 5xx — and the session's state is unchanged.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { api, createSession, type TestSession } from "../session/support.ts";
import { snapshotOf } from "./support.ts";

const DOCUMENTED = new Set([400, 401, 403, 404, 409, 410, 413, 415, 429]);

async function expectDocumentedError(res: Response): Promise<void> {
  expect(DOCUMENTED, `status ${res.status}`).toContain(res.status);
  const body = (await res.json()) as { error?: { code?: unknown; message?: unknown } };
  expect(typeof body.error?.code).toBe("string");
  expect(typeof body.error?.message).toBe("string");
}

const deep = (depth: number): unknown => (depth === 0 ? "bottom" : { a: [deep(depth - 1)] });

/** Values that are never a valid body for any route. */
const hostileBody = fc.oneof(
  fc.anything({ maxDepth: 3 }).filter((v) => !(typeof v === "object" && v !== null && !Array.isArray(v))),
  fc.record({
    content: fc.oneof(fc.integer(), fc.constant(null), fc.boolean(), fc.array(fc.integer(), { maxLength: 3 }), fc.constant("")),
  }),
  fc.record({ content: fc.constant("ok"), extra: fc.anything({ maxDepth: 2 }).filter((v) => v !== undefined) }),
  fc.record({
    content: fc.array(fc.record({ type: fc.constantFrom("text", "image", "video", "toolCall"), text: fc.integer() }), {
      minLength: 1,
      maxLength: 3,
    }),
  }),
  fc.record({ approve: fc.oneof(fc.string(), fc.integer(), fc.constant(null)) }),
  fc.constant({ content: deep(200) }),
  fc.constant({ content: Array.from({ length: 5_000 }, () => ({ type: "text", text: "x" })) }),
);

async function expectUntouched(session: TestSession): Promise<void> {
  const snapshot = await snapshotOf(session);
  expect(snapshot.messages).toHaveLength(0);
  expect(snapshot.queues).toMatchObject({ input: 0, followUp: 0, output: 0 });
  expect(snapshot.status).toBe("idle");
}

describe("hostile input", () => {
  it("answers random bodies on every write route with a documented 4xx and changes nothing", async () => {
    const session = await createSession();
    const routes = ["messages", "follow-ups", "tool-calls/c1/approval"];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), hostileBody, async (route, body) => {
        const res = await api(`/v1/sessions/${session.id}/${route}`, { method: "POST", key: session.key, json: body });
        await expectDocumentedError(res);
      }),
      { numRuns: 60 },
    );
    await expectUntouched(session);
  });

  it("answers raw bytes, invalid UTF-8 and wrong content types with 400 or 415", async () => {
    const session = await createSession();
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 200 }),
        fc.constantFrom("application/json", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data", ""),
        async (bytes, type) => {
          const headers: Record<string, string> = type ? { "content-type": type } : {};
          const res = await api(`/v1/sessions/${session.id}/messages`, { method: "POST", key: session.key, body: bytes, headers });
          if (res.status === 202) {
            // Only a valid JSON message body may be accepted; reject the property if random bytes formed one.
            throw new Error(`accepted random bytes: ${new TextDecoder().decode(bytes)}`);
          }
          await expectDocumentedError(res);
        },
      ),
      { numRuns: 60 },
    );
    await expectUntouched(session);
  });

  it("answers hostile paths, queries and Last-Event-IDs without a 5xx", async () => {
    const session = await createSession();
    const segment = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom("..", "%2e%2e", "%00", "a".repeat(500), "s_", "🙂"));
    await fc.assert(
      fc.asyncProperty(segment, fc.string({ maxLength: 40 }), async (id, query) => {
        const paths = [
          `/v1/sessions/${encodeURIComponent(id)}`,
          `/v1/sessions/${session.id}/responses/next?waitMs=${encodeURIComponent(query)}`,
          `/v1/sessions/${session.id}/events?lastEventId=${encodeURIComponent(query)}`,
          `/v1/sessions/${session.id}/tool-calls/${encodeURIComponent(id)}/approval`,
        ];
        for (const path of paths) {
          const method = path.endsWith("approval") ? "POST" : "GET";
          const res = await api(path, { method, key: session.key, json: method === "POST" ? { approve: true } : undefined });
          if (res.status === 200 && path.includes("/events")) {
            await res.body?.cancel(); // a numeric lastEventId is valid
            continue;
          }
          if (res.status === 204 || res.status === 200) continue; // a valid waitMs, or the session itself
          await expectDocumentedError(res);
        }
      }),
      { numRuns: 40 },
    );
    await expectUntouched(session);
  });

  it("rejects hostile create bodies with 400 naming the problem", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.record({ systemPrompt: fc.oneof(fc.integer(), fc.constant("p".repeat(60_000))) }),
          fc.record({ toolExecution: fc.string() }),
          fc.record({ tools: fc.array(fc.oneof(fc.constantFrom("../etc", "a b", ""), fc.integer()), { minLength: 1, maxLength: 4 }) }),
          fc.record({ requireApproval: fc.constant("*") }),
          fc.record({ surprise: fc.anything({ maxDepth: 1 }).filter((v) => v !== undefined) }), // undefined would vanish in JSON
        ),
        async (body) => {
          const res = await api("/v1/sessions", { method: "POST", json: body });
          expect(res.status).toBe(400);
          await expectDocumentedError(res);
        },
      ),
      { numRuns: 40 },
    );
  });
});
