/**
 * Small JSON values in the `meta` table: the session's settings, and the rows other owners keep there
 * (the run record's `run` and `usage`, the tombstone, the schema version). Values read or written
 * are remembered (as JSON text): the object is the table's only writer, so a repeated read costs no storage call.
 */
import type { ToolExecutionMode } from "../../core/index.ts";

export type SessionSettings = {
  id: string;
  keyHash: string;
  createdAt: number;
  systemPrompt: string;
  toolExecution: ToolExecutionMode;
  /** Bundled tool names this session may use; undefined means all. */
  tools?: string[];
  /** Tool names (or "*") whose every call waits for a human's approval. */
  requireApproval: string[];
  /** MCP servers (names in MCP_SERVERS) whose tools this session uses; undefined means all configured. */
  mcpServers?: string[];
  /** The model the creator chose (from the MODELS allowlist); undefined: the configured model. */
  model?: string;
  /** The Worker's origin as the creator reached it: MCP OAuth redirects come back to it. */
  origin?: string;
  /** LLM calls one run may make; undefined: the runtime's limit (agent-config.ts). A sub-agent's own limit. */
  maxSteps?: number;
  /** Set on a sub-agent's child session: whose call it serves and how deep it nests (the root is depth 0). */
  subAgent?: {
    parentId: string;
    toolCallId: string;
    depth: number;
    parentRunId?: string;
    /** What was left of the parent's session budget when it started this child: the child's limit too. */
    tokenBudget?: number;
  };
  /** The signed-in user the session belongs to (their token opens it; their memory is its memory); a child inherits it. */
  userId?: string;
  /** Set by versions before the tombstone; read once on wake to write one (session-end.ts), never written now. */
  shutdown?: boolean;
};

export class SessionMeta {
  /** Key → its stored JSON text, or null when absent. Parsed at each read, so callers never share an object. */
  private readonly known = new Map<string, string | null>();

  constructor(private readonly sql: SqlStorage) {}

  read<T>(key: string): T | undefined {
    let text = this.known.get(key);
    if (text === undefined) {
      text = this.sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = ?`, key).toArray()[0]?.value ?? null;
      this.known.set(key, text);
    }
    return text === null ? undefined : (JSON.parse(text) as T);
  }

  write(key: string, value: unknown): void {
    const text = JSON.stringify(value);
    this.sql.exec(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, text);
    this.known.set(key, text);
  }

  delete(key: string): void {
    this.sql.exec(`DELETE FROM meta WHERE key = ?`, key);
    this.known.set(key, null);
  }
}
