/**
 * Durable answers to MCP servers' elicitations (elicitation/create). A request gets a `waiting` row and
 * one mcpElicitation event; the server's call waits for the answer from the elicitation route, the
 * deadline (cancel), or its signal (the run's abort, the server's own cancel: cancel). Rows survive
 * restarts, but the connection that asked does not: on wake, waiting rows are closed, so a late answer
 * gets 409. Content is checked against the requested schema (@cfworker/json-schema) before it is sent.
 * Bounded: message and schema by size (a larger request is declined), the table by MAX_KEPT_ROWS.
 */
import { Validator, type OutputUnit } from "@cfworker/json-schema";
import type { AgentEvent } from "../../core/index.ts";
import type { McpElicitation, McpElicitationAnswer } from "../../mcp/client/mcp-connection.ts";
import { HumanWaits } from "./human-waits.ts";
import { ok, refuse, type SessionResult } from "../session-result.ts";

export type ElicitationAction = McpElicitationAnswer["action"];
type Status = "waiting" | "answered" | "cancelled";
type Row = { id: string; server: string; message: string; schema_json: string; status: Status; expires_at: number };

/** A question a person reads in a form: longer is a misbehaving server. */
const MAX_MESSAGE_CHARS = 4_000;
const MAX_SCHEMA_CHARS = 20_000;
/** Closed rows kept for a late answer's 409; older ones go. */
const MAX_KEPT_ROWS = 100;

export type AnswerOutcome = { kind: "answered" } | { kind: "unknown" } | { kind: "closed" } | { kind: "invalid"; message: string };

export class ElicitationGate {
  private readonly waits = new HumanWaits<McpElicitationAnswer>();

  constructor(
    private readonly sql: SqlStorage,
    private readonly emit: (event: AgentEvent) => void,
    private readonly timeoutMs: number,
  ) {
    // The MCP connection that asked ended with the previous instance of this object.
    this.sql.exec(`UPDATE elicitations SET status = 'cancelled' WHERE status = 'waiting'`);
  }

  async request(server: string, question: McpElicitation, signal: AbortSignal): Promise<McpElicitationAnswer> {
    const schemaJson = JSON.stringify(question.requestedSchema);
    if (question.message.length > MAX_MESSAGE_CHARS || schemaJson.length > MAX_SCHEMA_CHARS) {
      this.emit({ type: "error", message: `MCP server "${server}" asked a question too large to show (declined)` });
      return { action: "decline" };
    }
    const id = `elc_${crypto.randomUUID()}`;
    const expiresAt = Date.now() + this.timeoutMs;
    this.sql.exec(
      `INSERT INTO elicitations (id, server, message, schema_json, status, expires_at) VALUES (?, ?, ?, ?, 'waiting', ?)`,
      id,
      server,
      question.message,
      schemaJson,
      expiresAt,
    );
    this.sql.exec(
      `DELETE FROM elicitations WHERE status != 'waiting' AND id NOT IN (SELECT id FROM elicitations ORDER BY expires_at DESC LIMIT ?)`,
      MAX_KEPT_ROWS,
    );
    this.emit({ type: "mcpElicitation", elicitationId: id, server, message: question.message, requestedSchema: question.requestedSchema });
    return this.waits.wait(id, expiresAt, signal, () => {
      this.setStatus(id, "cancelled");
      return { action: "cancel" };
    });
  }

  /** A person's answer; `content` (accept only) must satisfy the requested schema. */
  answer(id: string, action: ElicitationAction, content: Record<string, unknown> | undefined): AnswerOutcome {
    const row = this.sql
      .exec<Row>(`SELECT id, server, message, schema_json, status, expires_at FROM elicitations WHERE id = ?`, id)
      .toArray()[0];
    if (!row) return { kind: "unknown" };
    if (row.status !== "waiting" || !this.waits.isWaiting(id)) return { kind: "closed" };
    if (action === "accept") {
      const problem = checkContent(JSON.parse(row.schema_json) as Record<string, unknown>, content ?? {});
      if (problem) return { kind: "invalid", message: problem };
    }
    this.setStatus(id, "answered");
    this.waits.settle(id, action === "accept" ? { action, content: content ?? {} } : { action });
    return { kind: "answered" };
  }

  pending(): { elicitationId: string; server: string; message: string; requestedSchema: Record<string, unknown>; expiresAt: number }[] {
    return this.sql
      .exec<Row>(
        `SELECT id, server, message, schema_json, status, expires_at FROM elicitations WHERE status = 'waiting' ORDER BY expires_at`,
      )
      .toArray()
      .map((r) => ({
        elicitationId: r.id,
        server: r.server,
        message: r.message,
        requestedSchema: JSON.parse(r.schema_json) as Record<string, unknown>,
        expiresAt: r.expires_at,
      }));
  }

  private setStatus(id: string, status: Status): void {
    this.sql.exec(`UPDATE elicitations SET status = ? WHERE id = ?`, status, id);
  }
}

/** The elicitations route's answer, as a session result (404 unknown, 409 closed, 400 invalid content). */
export function answerElicitation(
  { elicitations, runs }: { elicitations: ElicitationGate; runs: { readonly isShutdown: boolean } },
  id: string,
  action: ElicitationAction,
  content: Record<string, unknown> | undefined,
): SessionResult<{ elicitationId: string; action: ElicitationAction }> {
  if (runs.isShutdown) return refuse("shut_down", "Session is shut down");
  const outcome = elicitations.answer(id, action, content);
  switch (outcome.kind) {
    case "answered":
      return ok({ elicitationId: id, action });
    case "unknown":
      return refuse("unknown_elicitation", `No elicitation ${id}`);
    case "closed":
      return refuse("elicitation_closed", `Elicitation ${id} was already answered or closed`);
    case "invalid":
      return refuse("invalid_elicitation_content", outcome.message);
    default: {
      const never: never = outcome;
      throw new Error(`Unknown outcome ${JSON.stringify(never)}`);
    }
  }
}

/** undefined when `content` satisfies `schema`; else which field is wrong and why. */
export function checkContent(schema: Record<string, unknown>, content: Record<string, unknown>): string | undefined {
  let validator: Validator;
  try {
    validator = new Validator(schema as ConstructorParameters<typeof Validator>[0], "2020-12", false);
  } catch {
    return "the server's requested schema cannot be checked";
  }
  const result = validator.validate(content);
  if (result.valid) return undefined;
  const leaves = result.errors.filter((e) => !result.errors.some((o) => o !== e && o.keywordLocation.startsWith(`${e.keywordLocation}/`)));
  const first: OutputUnit = leaves[0] ?? result.errors[0]!;
  const field = first.instanceLocation.replace(/^#\/?/, "").split("/")[0] || missingField(first.error);
  return field ? `content.${field}: ${first.error}` : `content: ${first.error}`;
}

/** cfworker names a missing required property only in its message ('… required property "email".'). */
function missingField(error: string): string {
  return /property "([^"]+)"/.exec(error)?.[1] ?? "";
}
