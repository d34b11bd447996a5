/**
 * Idempotency-Key at the HTTP edge (docs/api.md "Idempotency-Key"). `idempotent` is the route middleware of the
 * session POST routes: a repeat of the same request under the same key gets the first answer (status and
 * body) and reaches no handler; another request under the key is 422. A route whose answer is not JSON
 * (/chat's stream) keeps its own answer with `keepAnswer` and rebuilds the response from `replayOf`.
 * Invariants: the header is 1–200 visible ASCII characters (400 otherwise); only 2xx answers are kept, so
 * a refused request may be retried under the same key; the key is checked after the body's validation.
 */
import type { Context, MiddlewareHandler } from "hono";
import { sha256Hex } from "../credentials.ts";
import type { KeptAnswer } from "../session/storage/idempotency-keys.ts";
import { ApiError } from "./errors.ts";
import { settle } from "./failure-status.ts";
import type { HonoEnv } from "./hono-env.ts";
import { sessionKey, sessionStub } from "./session-stub.ts";
import { checkSessionId } from "./validation.ts";

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
const KEY_SHAPE = /^[\x21-\x7e]{1,200}$/;

/** The request's Idempotency-Key, undefined when absent; a 400 when it is not of the allowed shape. */
export function readIdempotencyKey(request: Request): string | undefined {
  const raw = request.headers.get(IDEMPOTENCY_HEADER);
  if (raw === null) return undefined;
  if (!KEY_SHAPE.test(raw)) throw new ApiError(400, "bad_request", `${IDEMPOTENCY_HEADER} must be 1–200 visible ASCII characters`);
  return raw;
}

/** The request as a key compares it: method, path and the exact body bytes. */
export async function fingerprintOf(c: Context<HonoEnv>): Promise<string> {
  return sha256Hex(`${c.req.method} ${c.req.path}\n${await c.req.text()}`);
}

/** The request's key and fingerprint, for a route whose session call handles the key itself; undefined without a key. */
export async function idempotencyOf(c: Context<HonoEnv>): Promise<{ key: string; fingerprint: string } | undefined> {
  const key = readIdempotencyKey(c.req.raw);
  return key === undefined ? undefined : { key, fingerprint: await fingerprintOf(c) };
}

/** Answers again what a key kept (a JSON answer), for a route whose session call handled the key. */
export function replayKept(c: Context<HonoEnv>, replay: string): Response {
  const kept = JSON.parse(replay) as KeptAnswer;
  // A key's fingerprint names its route, so a kept answer of another kind is another request's.
  if (kept.kind !== "json")
    throw new ApiError(422, "idempotency_key_reused", "This Idempotency-Key was used for a different request; use a new key");
  return c.json(kept.body as object, kept.status as 200);
}

/** Route middleware for a session route (after `sessionParam` and the body validator). */
export const idempotent: MiddlewareHandler<HonoEnv> = async (c, next) => {
  const claim = await idempotencyOf(c);
  if (claim === undefined) return next();
  const { key: idempotencyKey, fingerprint } = claim;
  // Checked again (sessionParam did first): the stub takes only an id this Worker issued.
  const stub = sessionStub(c.env, await checkSessionId(c.env, c.req.param("id")));
  const key = sessionKey(c);
  const { replay } = settle(await stub.claimIdempotencyKey(key, idempotencyKey, fingerprint));
  if (replay !== undefined) {
    const kept = JSON.parse(replay) as KeptAnswer;
    if (kept.kind === "json") return c.json(kept.body as object, kept.status as 200);
    c.set("idempotencyReplay", kept.value);
    return next();
  }
  await next();
  const own = c.get("idempotencyKeep");
  let answer: KeptAnswer | undefined;
  if (c.res.status >= 200 && c.res.status < 300) {
    answer = own !== undefined ? { kind: "own", value: own } : { kind: "json", status: c.res.status, body: await c.res.clone().json() };
  }
  // Storing the answer never fails the request it belongs to: at worst a repeat runs again.
  await stub.settleIdempotencyKey(key, idempotencyKey, fingerprint, answer && JSON.stringify(answer)).catch(() => undefined);
};

/** For a route that answers other than JSON: what a repeat under this key needs to answer the same. */
export function keepAnswer(c: Context<HonoEnv>, value: unknown): void {
  c.set("idempotencyKeep", value);
}

/** What `keepAnswer` kept for the first request, when this one repeats it. */
export function replayOf<T>(c: Context<HonoEnv>): T | undefined {
  return c.get("idempotencyReplay") as T | undefined;
}
