/**
 * A byte-heavy session against a Worker run as deployed, as a black box: once a session's storage
 * reaches SESSION_MAX_BYTES, new input is refused with a 413 that says so, and what it stored stays.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startWranglerDev, type WranglerDev } from "../../support/wrangler-dev.ts";
import { errorOf, rawRequest } from "./support.ts";

const BUDGET = 2_000_000;
let dev: WranglerDev;

beforeAll(async () => {
  dev = await startWranglerDev({ local: false, vars: { ALLOW_ANONYMOUS_SESSIONS: "true", SESSION_MAX_BYTES: String(BUDGET) } });
}, 90_000);

afterAll(async () => {
  await dev?.stop();
});

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(`--- wrangler dev output ---\n${dev?.logs() ?? "(not started)"}`));
});

describe("a session's byte budget", () => {
  it("refuses new input with 413 once the session stores SESSION_MAX_BYTES, keeping what it stored", async () => {
    const created = await rawRequest(dev.url, "POST", "/v1/sessions");
    expect(created.status).toBe(201);
    const { id, key } = JSON.parse(created.body) as { id: string; key: string };
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const big = JSON.stringify({ content: "x".repeat(190_000) });
    const statuses: number[] = [];
    for (let i = 0; i < 40 && !statuses.includes(413); i++) {
      const res = await rawRequest(dev.url, "POST", `/v1/sessions/${id}/follow-ups`, headers, big);
      statuses.push(res.status);
      if (res.status === 413) {
        expect(errorOf(res)).toMatchObject({
          code: "payload_too_large",
          message: expect.stringMatching(/budget \(SESSION_MAX_BYTES\) is 2000000; start a new session$/),
        });
      }
      // Let the offline model answer, so the queue never fills first.
      if (res.status === 202)
        await rawRequest(dev.url, "GET", `/v1/sessions/${id}/responses/next?waitMs=5000`, { authorization: `Bearer ${key}` });
    }
    expect(statuses.at(-1)).toBe(413);
    const accepted = statuses.filter((s) => s === 202).length;
    expect(accepted).toBeGreaterThan(3);
    expect(accepted).toBeLessThan(20);
    const snapshot = JSON.parse((await rawRequest(dev.url, "GET", `/v1/sessions/${id}`, { authorization: `Bearer ${key}` })).body) as {
      messages: { role: string }[];
    };
    expect(snapshot.messages.length).toBeGreaterThan(0);
    // Reading stays possible; so does ending the session.
    expect((await rawRequest(dev.url, "DELETE", `/v1/sessions/${id}`, { authorization: `Bearer ${key}` })).status).toBe(200);
  });
});
