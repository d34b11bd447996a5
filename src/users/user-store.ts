/**
 * UserStore: one Durable Object per signed-in user (named by their `sub`), with its own SQLite: the index
 * of their sessions (GET /v1/sessions) and their memory (the remember/recall/forget tools, /v1/memories).
 * Kept apart by construction: another user's rows are in another object's database, so no query here can
 * return them. Only the Worker and the user's own sessions address it, always by the verified user id
 * (src/http/user-auth.ts) or the id their session was created with, never by a name the model chose.
 * Invariants: the index lists a session from its creation until its deletion or expiry (the session drops
 * its row as it ends; a row idle past the session lifetime is never listed, whatever happened to the
 * drop, unless the session said a schedule due later keeps it alive: `keep_until`); a memory is at most
 * MAX_MEMORY_CHARS and a user keeps at most MAX_MEMORIES of them; a forgotten memory leaves full-text
 * search in the same statement that deletes it (one FTS5 table holds them).
 * The user's token count per UTC day (USER_DAILY_TOKEN_BUDGET) is kept here too, one object per user, so
 * concurrent sessions see each other's spending at their next model call: each session reports the total
 * its own model calls have used (a running total, so a report repeated or lost is mended by the next);
 * today's count grows by what a session's total grew since its previous report. Only today's and
 * yesterday's counts are kept, and a session's reported total only until its lifetime has passed.
 */
import { DurableObject } from "cloudflare:workers";
import type { AppEnv } from "../env.ts";
import { readSetting, sessionIdleTtlMs } from "../config.ts";
import type { SessionListing, SessionPage } from "../wire/users.ts";
import type { Memory, Remembered } from "./memory-vocabulary.ts";

/** The longest memory, in characters. */
export const MAX_MEMORY_CHARS = 2_000;
/** Characters of the first user message a listing shows as the session's title. */
export const TITLE_CHARS = 80;
export const MAX_LIST_LIMIT = 100;

/** The user store of `userId`: the one object named by it. */
export function userStore(env: Pick<AppEnv, "USER_STORE">, userId: string): DurableObjectStub<UserStore> {
  return env.USER_STORE.get(env.USER_STORE.idFromName(`user:${userId}`));
}

/** A session's title: its first user message's first 80 characters, blanks folded. */
export function titleOf(text: string): string | null {
  const folded = text.replace(/\s+/g, " ").trim();
  return folded === "" ? null : [...folded].slice(0, TITLE_CHARS).join("");
}

/**
 * The user's words as an FTS5 query: each word quoted (so no text is FTS5 syntax), any of them matching;
 * bm25 ranks the memories with more and rarer words first. Undefined when the text has no word.
 */
export function ftsQuery(text: string): string | undefined {
  const words = text.match(/[\p{L}\p{N}_]+/gu)?.slice(0, 32) ?? [];
  return words.length === 0 ? undefined : words.map((w) => `"${w}"`).join(" OR ");
}

type SessionRow = { id: string; created_at: number; last_active_at: number; title: string | null; status: string; keep_until: number };
type MemoryRow = { id: string; text: string; created_at: number; session_id: string | null };

const toListing = (r: SessionRow): SessionListing => ({
  id: r.id,
  createdAt: r.created_at,
  lastActiveAt: r.last_active_at,
  title: r.title,
  status: r.status,
});
const toMemory = (r: MemoryRow): Memory => ({ id: r.id, text: r.text, createdAt: r.created_at, sessionId: r.session_id });

export class UserStore extends DurableObject<AppEnv> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: AppEnv) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.createTables();
  }

  private createTables(): void {
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS sessions (
        id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, last_active_at INTEGER NOT NULL, title TEXT, status TEXT NOT NULL,
        keep_until INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX IF NOT EXISTS sessions_recent ON sessions (last_active_at DESC, id DESC);
      CREATE VIRTUAL TABLE IF NOT EXISTS memories USING fts5(id UNINDEXED, text, created_at UNINDEXED, session_id UNINDEXED);
      CREATE TABLE IF NOT EXISTS token_days (day TEXT PRIMARY KEY, used INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS session_tokens (session_id TEXT PRIMARY KEY, reported INTEGER NOT NULL, at INTEGER NOT NULL);
    `);
    // Stores made before `keep_until` existed gain it (0: kept no longer than its idleness allows).
    const columns = this.sql.exec<{ name: string }>(`SELECT name FROM pragma_table_info('sessions')`).toArray();
    if (!columns.some((c) => c.name === "keep_until"))
      this.sql.exec(`ALTER TABLE sessions ADD COLUMN keep_until INTEGER NOT NULL DEFAULT 0`);
  }

  /** A new session of this user (AgentSession.init). */
  indexSession(id: string, createdAt: number): void {
    this.sql.exec(
      `INSERT INTO sessions (id, created_at, last_active_at, title, status) VALUES (?, ?, ?, NULL, 'idle') ON CONFLICT (id) DO NOTHING`,
      id,
      createdAt,
      createdAt,
    );
  }

  /** Activity in a session: its status now, and its title if it has none yet. A dropped session stays dropped. */
  touchSession(id: string, status: string, title: string | null = null): void {
    this.sql.exec(
      `UPDATE sessions SET last_active_at = ?, status = ?, title = COALESCE(title, ?) WHERE id = ?`,
      Date.now(),
      status,
      title,
      id,
    );
  }

  /**
   * The session cannot expire before `until` (a schedule due then keeps it alive however idle it is):
   * its row outlives its idleness that long. Never shortens what an earlier call kept.
   */
  keepSession(id: string, until: number): void {
    this.sql.exec(`UPDATE sessions SET keep_until = MAX(keep_until, ?) WHERE id = ?`, until, id);
  }

  /** The session ended (deleted or expired): it is never listed again. */
  dropSession(id: string): void {
    this.sql.exec(`DELETE FROM sessions WHERE id = ?`, id);
  }

  /**
   * Most recently active first; `before` is a page's `next`. Rows idle past the session lifetime are gone,
   * unless the session keeps them (keepSession) for a schedule that is not due yet.
   */
  listSessions(limit: number, before?: string): SessionPage {
    const now = Date.now();
    this.sql.exec(`DELETE FROM sessions WHERE last_active_at < ? AND keep_until < ?`, now - sessionIdleTtlMs(this.env), now);
    const cursor = parseCursor(before);
    const n = Math.min(Math.max(1, limit), MAX_LIST_LIMIT);
    const rows = cursor
      ? this.sql
          .exec<SessionRow>(
            `SELECT * FROM sessions WHERE last_active_at < ? OR (last_active_at = ? AND id < ?)
             ORDER BY last_active_at DESC, id DESC LIMIT ?`,
            cursor.at,
            cursor.at,
            cursor.id,
            n + 1,
          )
          .toArray()
      : this.sql.exec<SessionRow>(`SELECT * FROM sessions ORDER BY last_active_at DESC, id DESC LIMIT ?`, n + 1).toArray();
    const sessions = rows.slice(0, n).map(toListing);
    const last = sessions.at(-1);
    return rows.length > n && last ? { sessions, next: `${last.lastActiveAt}.${last.id}` } : { sessions };
  }

  /** Every session id this user has (for erasing the user), oldest first. */
  sessionIds(): string[] {
    return this.sql
      .exec<{ id: string }>(`SELECT id FROM sessions ORDER BY created_at`)
      .toArray()
      .map((r) => r.id);
  }

  remember(text: string, sessionId: string | null): Remembered {
    const trimmed = text.trim();
    if (trimmed === "") return { ok: false, message: "A memory needs some text." };
    if (trimmed.length > MAX_MEMORY_CHARS)
      return { ok: false, message: `A memory is at most ${MAX_MEMORY_CHARS} characters (this one has ${trimmed.length}).` };
    const max = readSetting(this.env, "MAX_MEMORIES");
    const count = this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM memories`).one().n;
    if (count >= max)
      return { ok: false, message: `This user already keeps ${max} memories (MAX_MEMORIES): forget one before remembering another.` };
    const id = `mem_${crypto.randomUUID().replaceAll("-", "")}`;
    this.sql.exec(`INSERT INTO memories (id, text, created_at, session_id) VALUES (?, ?, ?, ?)`, id, trimmed, Date.now(), sessionId);
    return { ok: true, memoryId: id };
  }

  /** Full-text search, best first; without words in `query`, the newest memories. */
  recall(query: string | undefined, limit: number): Memory[] {
    const n = Math.min(Math.max(1, limit), MAX_LIST_LIMIT);
    const match = query === undefined ? undefined : ftsQuery(query);
    const rows = match
      ? this.sql
          .exec<MemoryRow>(`SELECT id, text, created_at, session_id FROM memories WHERE memories MATCH ? ORDER BY rank LIMIT ?`, match, n)
          .toArray()
      : this.sql
          .exec<MemoryRow>(`SELECT id, text, created_at, session_id FROM memories ORDER BY CAST(created_at AS INTEGER) DESC LIMIT ?`, n)
          .toArray();
    return rows.map(toMemory);
  }

  /** Whether a memory of this user's had that id (it is gone from search at once). */
  forget(memoryId: string): boolean {
    const held = this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM memories WHERE id = ?`, memoryId).one().n;
    if (held === 0) return false;
    this.sql.exec(`DELETE FROM memories WHERE id = ?`, memoryId);
    return true;
  }

  /**
   * A session's own model calls have used `total` tokens so far (never less than it reported before):
   * today's count grows by the difference, and is returned. A session that reports the same total twice
   * adds nothing, so a report may be repeated after a restart.
   */
  reportTokens(sessionId: string, total: number): { used: number } {
    const now = Date.now();
    const day = utcDay(now);
    const before = this.sql.exec<{ reported: number }>(`SELECT reported FROM session_tokens WHERE session_id = ?`, sessionId).toArray()[0];
    const grown = Math.max(0, Math.floor(total) - (before?.reported ?? 0));
    if (grown > 0 || !before) {
      this.ctx.storage.transactionSync(() => {
        this.sql.exec(
          `INSERT INTO session_tokens (session_id, reported, at) VALUES (?, ?, ?)
           ON CONFLICT (session_id) DO UPDATE SET reported = MAX(reported, excluded.reported), at = excluded.at`,
          sessionId,
          Math.floor(total),
          now,
        );
        if (grown > 0) {
          this.sql.exec(
            `INSERT INTO token_days (day, used) VALUES (?, ?) ON CONFLICT (day) DO UPDATE SET used = used + excluded.used`,
            day,
            grown,
          );
          this.sql.exec(`DELETE FROM token_days WHERE day < ?`, utcDay(now - DAY_MS));
          this.sql.exec(`DELETE FROM session_tokens WHERE at < ?`, now - sessionIdleTtlMs(this.env) - DAY_MS);
        }
      });
    }
    return { used: this.usedOn(day) };
  }

  /** Tokens this user's sessions used today (UTC). */
  tokensToday(): { used: number } {
    return { used: this.usedOn(utcDay(Date.now())) };
  }

  private usedOn(day: string): number {
    return this.sql.exec<{ used: number }>(`SELECT used FROM token_days WHERE day = ?`, day).toArray()[0]?.used ?? 0;
  }

  /**
   * The operator's erase, once the caller has shut down the sessions `ended`: erases everything this user
   * has here, unless a session not among them is listed (created meanwhile); then nothing is erased and
   * those ids are returned, for the caller to shut down before it asks again. One call, so no session can
   * be listed between the check and the erase.
   */
  async eraseAll(ended: readonly string[]): Promise<{ erased: true } | { erased: false; listed: string[] }> {
    const done = new Set(ended);
    const listed = this.sessionIds().filter((id) => !done.has(id));
    if (listed.length > 0) return { erased: false, listed };
    await this.ctx.storage.deleteAll();
    this.createTables();
    return { erased: true };
  }
}

const DAY_MS = 86_400_000;

/** The UTC day of `at`, as YYYY-MM-DD (the key of a daily count). */
export const utcDay = (at: number): string => new Date(at).toISOString().slice(0, 10);

function parseCursor(before: string | undefined): { at: number; id: string } | undefined {
  const match = before === undefined ? null : /^(\d{1,15})\.(.{1,200})$/.exec(before);
  return match ? { at: Number(match[1]), id: match[2]! } : undefined;
}
