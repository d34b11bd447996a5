/**
 * Where MCP OAuth credentials live: two tables in a Durable Object's SQLite, used by the Worker-wide
 * McpCredentials object (servers of MCP_SERVERS) and by a session (servers it added). `mcp_oauth` holds
 * per server the registered client, the tokens and the discovery result; `mcp_oauth_flows` the pending
 * authorizations, keyed by the SHA-256 of their `state`, one-time and expiring. The store creates its
 * tables itself (both object classes use it). Values are bounded in bytes; nothing here is ever logged.
 */

export type OAuthRecordKind = "client" | "tokens" | "discovery";

/** An authorization a user was sent to and has not completed; `state` is its only handle. */
export type PendingFlow = {
  server: string;
  sessionId: string;
  verifier: string;
  redirectUrl: string;
  expiresAt: number;
  /** The authorization server's issuer as its checked metadata names it: what a response's `iss` must be (RFC 9207). */
  issuer?: string;
  /** The metadata promised `iss` in every authorization response: one without it is refused. */
  issRequired?: boolean;
  /** The scope the user was asked to grant: the tokens' scope when the token response names none (RFC 6749 5.1). */
  scope?: string;
};

/** A flow not completed within this time is forgotten (its state no longer completes anything). */
export const FLOW_TTL_MS = 10 * 60_000;
/** Pending flows kept per object; older ones go first (a flood of Connect clicks cannot grow storage). */
const MAX_FLOWS = 64;
/** A token response or client registration larger than this is refused, not stored. */
export const MAX_RECORD_BYTES = 16_384;

export const MCP_OAUTH_SCHEMA = `CREATE TABLE IF NOT EXISTS mcp_oauth (server TEXT NOT NULL, kind TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (server, kind));
CREATE TABLE IF NOT EXISTS mcp_oauth_flows (state_hash TEXT PRIMARY KEY, json TEXT NOT NULL, expires_at INTEGER NOT NULL)`;

/** What a credential holder keeps: a Durable Object's SQLite here; any synchronous store will do. */
export interface McpOAuthRecords {
  read(server: string, kind: OAuthRecordKind): string | undefined;
  write(server: string, kind: OAuthRecordKind, value: string): void;
  drop(server: string, kinds: readonly OAuthRecordKind[]): void;
  dropIf(server: string, kind: OAuthRecordKind, expected: string): void;
  saveFlow(stateHash: string, flow: PendingFlow): void;
  takeFlow(stateHash: string): PendingFlow | undefined;
}

export class McpOAuthStore implements McpOAuthRecords {
  constructor(private readonly sql: SqlStorage) {}

  read(server: string, kind: OAuthRecordKind): string | undefined {
    return this.sql.exec<{ value: string }>(`SELECT value FROM mcp_oauth WHERE server = ? AND kind = ?`, server, kind).toArray()[0]?.value;
  }

  write(server: string, kind: OAuthRecordKind, value: string): void {
    if (new TextEncoder().encode(value).byteLength > MAX_RECORD_BYTES)
      throw new Error(`the authorization server's ${kind} record is over ${MAX_RECORD_BYTES} bytes`);
    this.sql.exec(
      `INSERT INTO mcp_oauth (server, kind, value) VALUES (?, ?, ?) ON CONFLICT (server, kind) DO UPDATE SET value = excluded.value`,
      server,
      kind,
      value,
    );
  }

  drop(server: string, kinds: readonly OAuthRecordKind[]): void {
    for (const kind of kinds) this.sql.exec(`DELETE FROM mcp_oauth WHERE server = ? AND kind = ?`, server, kind);
  }

  dropIf(server: string, kind: OAuthRecordKind, expected: string): void {
    this.sql.exec(`DELETE FROM mcp_oauth WHERE server = ? AND kind = ? AND value = ?`, server, kind, expected);
  }

  /** Forgets everything about a server (a session removed it). */
  forget(server: string): void {
    this.sql.exec(`DELETE FROM mcp_oauth WHERE server = ?`, server);
    this.sql.exec(`DELETE FROM mcp_oauth_flows WHERE json ->> 'server' = ?`, server);
  }

  saveFlow(stateHash: string, flow: PendingFlow, now = Date.now()): void {
    const sql = this.sql;
    sql.exec(`DELETE FROM mcp_oauth_flows WHERE expires_at <= ?`, now);
    sql.exec(
      `DELETE FROM mcp_oauth_flows WHERE state_hash IN (SELECT state_hash FROM mcp_oauth_flows ORDER BY expires_at DESC LIMIT -1 OFFSET ?)`,
      MAX_FLOWS - 1,
    );
    sql.exec(
      `INSERT OR REPLACE INTO mcp_oauth_flows (state_hash, json, expires_at) VALUES (?, ?, ?)`,
      stateHash,
      JSON.stringify(flow),
      flow.expiresAt,
    );
  }

  /** The flow of this state, removed so it completes once; undefined when unknown or expired. */
  takeFlow(stateHash: string, now = Date.now()): PendingFlow | undefined {
    const row = this.sql
      .exec<{ json: string; expires_at: number }>(`DELETE FROM mcp_oauth_flows WHERE state_hash = ? RETURNING json, expires_at`, stateHash)
      .toArray()[0];
    return row && row.expires_at > now ? (JSON.parse(row.json) as PendingFlow) : undefined;
  }
}
