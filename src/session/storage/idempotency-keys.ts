/**
 * The session's Idempotency-Key table (docs/api.md "Idempotency-Key"): a key is claimed while its request runs,
 * then holds that request's answer (opaque JSON the HTTP layer shapes) for 24 h. Called by AgentSession's
 * claim/remember/release methods and by `init` for the creation row. Invariants: bounded by count and by
 * bytes (the oldest keys go first); a claim left pending by a lost request is taken over after a minute;
 * storing an answer never fails the request it belongs to (too big an answer is simply not kept).
 */

/** How long a key answers with its first answer. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1_000;
/** A claim older than this belongs to a request that died before answering: a repeat may run again. */
export const PENDING_CLAIM_MS = 60_000;
/** Keys a session keeps at most; past it the oldest are forgotten. */
export const MAX_IDEMPOTENCY_KEYS = 256;
/** Bytes (key + fingerprint + answer) a session keeps at most, over all keys. */
export const MAX_IDEMPOTENCY_BYTES = 256 * 1024;
/** An answer bigger than this is not kept (the routes' answers are a few hundred bytes). */
export const MAX_ANSWER_BYTES = 8 * 1024;

/** What a key keeps (the HTTP layer's answer): a JSON answer, or a route's own record to rebuild its answer from. */
export type KeptAnswer = { kind: "json"; status: number; body: unknown } | { kind: "own"; value: unknown };

export type IdempotencyClaim = { kind: "fresh" } | { kind: "replay"; answer: string } | { kind: "mismatch" } | { kind: "in_progress" };

type Row = { fingerprint: string; answer: string | null; created_at: number };

export class IdempotencyKeys {
  constructor(private readonly sql: SqlStorage) {}

  /** Claims `key` for a request with this fingerprint, or says what it already holds. */
  claim(key: string, fingerprint: string, now = Date.now()): IdempotencyClaim {
    const seen = this.check(key, fingerprint, now);
    if (seen.kind === "fresh") this.write(key, fingerprint, null, now);
    return seen;
  }

  /**
   * What `key` holds for a request with this fingerprint, writing nothing: for a request answered within
   * one call to the object, which keeps its claim in memory and stores only the answer (one row, not two).
   */
  check(key: string, fingerprint: string, now = Date.now()): IdempotencyClaim {
    this.forgetExpired(now);
    const row = this.read(key);
    if (row) {
      if (row.fingerprint !== fingerprint) return { kind: "mismatch" };
      if (row.answer !== null) return { kind: "replay", answer: row.answer };
      if (now - row.created_at < PENDING_CLAIM_MS) return { kind: "in_progress" };
    }
    return { kind: "fresh" };
  }

  /** Keeps the answer of a claimed key; false when it was too big to keep (the claim is dropped then). */
  remember(key: string, fingerprint: string, answer: string, now = Date.now()): boolean {
    if (answer.length > MAX_ANSWER_BYTES) {
      this.release(key);
      return false;
    }
    this.write(key, fingerprint, answer, now);
    return true;
  }

  /** Drops a claim whose request failed: the same key may be tried again. */
  release(key: string): void {
    this.sql.exec(`DELETE FROM idempotency_keys WHERE key = ? AND answer IS NULL`, key);
  }

  /** What `key` holds now (within its 24 h), for the creation row. */
  lookup(key: string, now = Date.now()): { fingerprint: string; answer: string | null } | undefined {
    this.forgetExpired(now);
    return this.read(key);
  }

  forgetExpired(now = Date.now()): void {
    this.sql.exec(`DELETE FROM idempotency_keys WHERE created_at < ?`, now - IDEMPOTENCY_TTL_MS);
  }

  private read(key: string): Row | undefined {
    return this.sql.exec<Row>(`SELECT fingerprint, answer, created_at FROM idempotency_keys WHERE key = ?`, key).toArray()[0];
  }

  private write(key: string, fingerprint: string, answer: string | null, now: number): void {
    const bytes = key.length + fingerprint.length + (answer?.length ?? 0);
    this.sql.exec(
      `INSERT INTO idempotency_keys (key, fingerprint, answer, bytes, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET fingerprint = excluded.fingerprint, answer = excluded.answer, bytes = excluded.bytes,
         created_at = CASE WHEN excluded.answer IS NULL THEN excluded.created_at ELSE idempotency_keys.created_at END`,
      key,
      fingerprint,
      answer,
      bytes,
      now,
    );
    // Newest first: a key past the count or the running byte total is forgotten (oldest first). Among keys
    // of the same millisecond the one just written counts as newest (the table has no insertion order).
    this.sql.exec(
      `DELETE FROM idempotency_keys WHERE key IN (
         SELECT key FROM (SELECT key, ROW_NUMBER() OVER w AS n, SUM(bytes) OVER w AS total FROM idempotency_keys
           WINDOW w AS (ORDER BY created_at DESC, key = ? DESC, key DESC))
         WHERE n > ? OR total > ?)`,
      key,
      MAX_IDEMPOTENCY_KEYS,
      MAX_IDEMPOTENCY_BYTES,
    );
  }
}
