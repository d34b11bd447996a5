/**
 * The client SDK's retries of state-changing calls: each call carries its own Idempotency-Key, the same
 * key on every attempt; network failures, 5xx and an "in progress" 409 are retried, a bounded number of
 * times; a 4xx answer is not. Against a real node:http server on 127.0.0.1.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ApiClientError, createClient } from "../../src/client/index.ts";
import { MAX_ATTEMPTS } from "../../src/client/retry-policy.ts";
import { startTestServer, type TestServer } from "./support.ts";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server that answers the n-th request with `plan[n]` (a status, or "drop" to cut the connection). */
async function planned(plan: (number | "drop")[], body: unknown): Promise<{ url: string; keys: (string | undefined)[] }> {
  const keys: (string | undefined)[] = [];
  server = await startTestServer((req, res) => {
    keys.push(req.headers["idempotency-key"] as string | undefined);
    const step = plan[Math.min(keys.length - 1, plan.length - 1)]!;
    if (step === "drop") return void res.socket?.destroy();
    const status = step;
    res.writeHead(status, { "content-type": "application/json" });
    res.end(
      JSON.stringify(status < 300 ? body : { error: { code: status === 409 ? "idempotency_in_progress" : "internal", message: "x" } }),
    );
  });
  return { url: server.url, keys };
}

describe("idempotent retries in the client SDK", () => {
  it("retries a dropped connection and a 5xx under the same key, and returns the answer", async () => {
    const { url, keys } = await planned(["drop", 503, 202], { messageId: "m1" });
    const session = createClient({ baseUrl: url }).session("s_1", "sk_1");
    expect(await session.send("hi")).toEqual({ messageId: "m1" });
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(/^[\x21-\x7e]{1,200}$/);
    expect(new Set(keys).size).toBe(1);
  });

  it("sends a different key for each call, on create, send and follow-up", async () => {
    const { url, keys } = await planned([201], { id: "s_1", key: "sk_1", messageId: "m" });
    const client = createClient({ baseUrl: url });
    const session = await client.createSession();
    await session.send("a");
    await session.followUp("b");
    expect(keys.every((k) => typeof k === "string")).toBe(true);
    expect(new Set(keys).size).toBe(3);
  });

  it("waits out an in-progress 409 and gets the first answer", async () => {
    const { url, keys } = await planned([409, 202], { messageId: "m2" });
    expect(await createClient({ baseUrl: url }).session("s_1", "sk_1").followUp("x")).toEqual({ messageId: "m2" });
    expect(keys).toHaveLength(2);
  });

  it("gives up after a bounded number of attempts, and never retries a 4xx", async () => {
    const failing = await planned([500], {});
    const error = await createClient({ baseUrl: failing.url })
      .session("s_1", "sk_1")
      .send("x")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiClientError);
    expect(failing.keys).toHaveLength(MAX_ATTEMPTS);
    await server!.close();
    const refused = await planned([422], {});
    await expect(createClient({ baseUrl: refused.url }).session("s_1", "sk_1").send("x")).rejects.toMatchObject({ status: 422 });
    expect(refused.keys).toHaveLength(1);
  });

  it("sends no key and no retry on calls that are not idempotent", async () => {
    const { url, keys } = await planned([500], {});
    await expect(createClient({ baseUrl: url }).session("s_1", "sk_1").abort()).rejects.toMatchObject({ status: 500 });
    expect(keys).toEqual([undefined]);
  });
});
