/**
 * AgentSession: one Durable Object per session, and nothing but wiring. Each RPC method checks access
 * (session-access.ts) and hands over to the part that does the job: the run driver (runs and input), the
 * schedule store, output waiters (takeResponse), the approval policy, the event stream, the snapshot view. Methods return
 * SessionResult values and never throw across RPC; the router turns failures into HTTP answers. The one
 * exception is completeMcpAuth, which answers an AuthCompletion carrying its own HTTP status.
 * Invariants: a run a restart interrupted resumes in the constructor, before any method sees the session;
 * an object that holds no session (an unknown id) writes nothing: its schema is created only by `init`
 * (or, for a sub-agent's child session, by `startSubAgent`, which only a parent session calls). "Shut
 * down" is stored once, as the tombstone: written before a DELETE stops anything, so a restart finishes
 * the erase; from then on every method answers 410. A failed write restarts the session in place: it is
 * loaded again from what was stored, as after a restart of the object.
 */
import { DurableObject } from "cloudflare:workers";
import type { UserContent } from "../core/index.ts";
import type { AppEnv } from "../env.ts";
import { completeAuthorization } from "../mcp/oauth/oauth-completion.ts";
import { addSessionServer, readAddedServers, removeSessionServer, type AddServerRequest } from "../mcp/client/session-servers.ts";
import { dropDraft } from "../tools/written/session-tools.ts";
import { answerClose, EVENT_SOCKET_HEADERS } from "./events/event-sockets.ts";
import { attachEventSocket, openEventStream } from "./events/event-feed.ts";
import { takeResponse } from "./run/output-waiters.ts";
import { authorize, type Caller } from "./session-access.ts";
import { loadSession, readSettings, writeSettings } from "./session-loader.ts";
import type { Session } from "./session.ts";
import type { SessionSettings } from "./storage/session-meta.ts";
import type { QueueKind } from "./storage/session-queues.ts";
import type { ScheduleRequest } from "../schedules/schedule-spec.ts";
import { ok, refuse, type SessionResult } from "./session-result.ts";
import { hasSchema, migrate } from "./storage/session-schema.ts";
import { IdempotencyKeys, type KeptAnswer } from "./storage/idempotency-keys.ts";
import { describeSession } from "./session-view.ts";
import { decideApproval } from "./human/tool-approval.ts";
import { answerElicitation, type ElicitationAction } from "./human/elicitation-gate.ts";
import { onAlarm, planAlarm, startDueWork } from "./session-alarm.ts";
import { eraseSession, goneMessage, readTombstone, type Tombstone, writeTombstone } from "./session-end.ts";
import { refuseSpentUser, SESSION_BUDGET_KEY } from "./run/token-budget.ts";
import { updateSettings, type SettingsPatch } from "./session-settings.ts";
import { authorizeParent, followChild, refuseChildInput, storeChild } from "./sub-agents/sub-agent-child.ts";
import { sessionIndex } from "../users/session-index.ts";

/**
 * An idempotent creation: the caller's key, the request's fingerprint and the session key to answer again,
 * sealed by the Worker (src/signing/sealed-creation-key.ts): the session never holds it readable.
 */
export type CreationKey = { idempotencyKey: string; fingerprint: string; sealedKey: string };

/**
 * What init answers: the id, and on a repeat the sealed key the first request kept. `key` is the plain key
 * of rows kept before keys were sealed (read until they expire, 24 h after their creation).
 */
export type CreationAnswer = { id: string; sealedKey?: string; key?: string };

/** How long session creation waits for the MCP servers' tool lists (they keep loading after it). */
const MCP_LIST_WAIT_MS = 3_000;

export class AgentSession extends DurableObject<AppEnv> {
  private session?: Session;
  private tombstone?: Tombstone;
  /** Set from a failed write until the session is read again from storage: calls wait for it. */
  private reloading?: Promise<void>;
  /** Idempotency-Keys whose message is being accepted by `enqueueOnce` right now. */
  private readonly answering = new Set<string>();

  constructor(ctx: DurableObjectState, env: AppEnv) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(() => this.wake());
  }

  /**
   * Reads the session from storage: at the object's start, and again after a failed write. `resume`
   * false (after a failed write): an interrupted run waits for the next alarm or input, so storage that
   * keeps failing costs a retry per heartbeat, not a loop of model calls.
   */
  private async wake(resume = true): Promise<void> {
    const sql = this.ctx.storage.sql;
    // Never created (a request for an unknown id): nothing to read, and nothing is written.
    if (!hasSchema(sql)) return;
    migrate(sql);
    this.tombstone = readTombstone(sql);
    const settings = readSettings(sql);
    if (!settings) return;
    // Rows written before the tombstone existed said "shut down" in the settings.
    if (settings.shutdown && !this.tombstone) this.tombstone = writeTombstone(sql, settings.id, "deleted", ownerOf(settings));
    const session = await this.load(settings);
    // A DELETE the restart interrupted is finished, not forgotten (nothing of the session runs first).
    if (this.tombstone) return void this.end(this.tombstone.reason);
    // The object starts only when something calls in (a request, or the heartbeat alarm a run keeps
    // set): a run a restart interrupted resumes here, before any method sees the session; then
    // schedules that came due while the object was away fire (once: the fire moves them on).
    if (!resume) return;
    session.runs.resumeInterrupted();
    startDueWork(this.sessionAlarmParts(session));
  }

  /**
   * Creates the session. `creation`: the request carried an Idempotency-Key (the id was derived from it):
   * its answer is kept, so a repeat within 24 h gets the same id and key instead of a conflict. A user's
   * session is on its user's list before anything is stored: when that write fails the creation fails
   * (and may be retried), so no session exists that the list and the operator's erase cannot find.
   */
  async init(settings: SessionSettings, creation?: CreationKey): Promise<SessionResult<CreationAnswer>> {
    if (this.session || this.tombstone) return this.repeatCreation(creation);
    const index = sessionIndex(this.env, settings);
    if (index) {
      // No other call may start creating this session while the list is written. The failure is thrown
      // after the block: one thrown inside it would reset the object.
      let failed: { error: unknown } | undefined;
      await this.ctx.blockConcurrencyWhile(() => index.created().catch((error: unknown) => void (failed = { error })));
      if (failed) throw failed.error;
      if (this.session || this.tombstone) return this.repeatCreation(creation);
    }
    migrate(this.ctx.storage.sql);
    writeSettings(this.ctx.storage.sql, settings);
    if (creation)
      new IdempotencyKeys(this.ctx.storage.sql).remember(
        creation.idempotencyKey,
        creation.fingerprint,
        JSON.stringify({ id: settings.id, sealedKey: creation.sealedKey } satisfies CreationAnswer),
      );
    const session = await this.load(settings);
    // List remote tools now, so the first snapshot shows them; a slow server does not hold creation long.
    await Promise.race([session.mcp.refresh(), new Promise((resolve) => setTimeout(resolve, MCP_LIST_WAIT_MS))]);
    await planAlarm(this.sessionAlarmParts(session)); // arms the idle deadline
    return ok({ id: settings.id });
  }

  /** Claims an Idempotency-Key for a request (its fingerprint: route and body), or says what it holds. */
  claimIdempotencyKey(key: Caller, idempotencyKey: string, fingerprint: string) {
    return this.authorized(key, (): SessionResult<{ replay?: string }> => {
      const claim = new IdempotencyKeys(this.ctx.storage.sql).claim(idempotencyKey, fingerprint);
      if (claim.kind === "mismatch")
        return refuse("idempotency_mismatch", "This Idempotency-Key was used for a different request; use a new key");
      if (claim.kind === "in_progress")
        return refuse("idempotency_in_progress", "A request with this Idempotency-Key is still being answered; retry shortly");
      return ok(claim.kind === "replay" ? { replay: claim.answer } : {});
    });
  }

  /** Keeps the answer of a claimed key (`answer` undefined: the request failed, the key is free again). */
  settleIdempotencyKey(key: Caller, idempotencyKey: string, fingerprint: string, answer: string | undefined) {
    return this.authorized(key, () => {
      const keys = new IdempotencyKeys(this.ctx.storage.sql);
      if (answer === undefined) keys.release(idempotencyKey);
      else keys.remember(idempotencyKey, fingerprint, answer);
      return ok({});
    });
  }

  snapshot(key: Caller) {
    return this.authorized(key, async (s) => {
      // The user's count as it stands (the report also counts a run's last call if its own report failed);
      // when the user's store cannot answer, the last count this session learnt.
      const user = await s.userBudget?.report(s.record.ownTokens()).catch(() => s.userBudget?.lastKnown());
      return ok(describeSession(s, this.env, user));
    });
  }

  /** A page of history before the cursor `before` (default: the newest), oldest first. */
  messagePage(key: Caller, before: number | undefined, limit: number) {
    return this.authorized(key, (s) => ok(s.messages.page(before, limit)));
  }

  enqueue(key: Caller, kind: QueueKind, content: UserContent[]) {
    return this.authorized(key, (s) => this.accept(s, kind, content));
  }

  /**
   * A message under an Idempotency-Key (`idempotency`, if the request had one) in one call: the key is
   * checked, the message queued and its answer kept (the HTTP layer's KeptAnswer, as it keeps every
   * answer), the queue row and the key's row in the same commit. The claim lives in memory while the
   * message is being accepted: a repeat meanwhile is told to retry; a restart ends both.
   */
  enqueueOnce(key: Caller, kind: QueueKind, content: UserContent[], idempotency: { key: string; fingerprint: string } | undefined) {
    return this.authorized(key, async (s): Promise<SessionResult<{ messageId: string } | { replay: string }>> => {
      if (!idempotency) return this.accept(s, kind, content);
      const keys = new IdempotencyKeys(this.ctx.storage.sql);
      const seen = this.answering.has(idempotency.key)
        ? { kind: "in_progress" as const }
        : keys.check(idempotency.key, idempotency.fingerprint);
      if (seen.kind === "mismatch")
        return refuse("idempotency_mismatch", "This Idempotency-Key was used for a different request; use a new key");
      if (seen.kind === "in_progress")
        return refuse("idempotency_in_progress", "A request with this Idempotency-Key is still being answered; retry shortly");
      if (seen.kind === "replay") return ok({ replay: seen.answer });
      this.answering.add(idempotency.key);
      try {
        return await this.accept(s, kind, content, (messageId) => {
          const answer: KeptAnswer = { kind: "json", status: 202, body: { messageId } };
          keys.remember(idempotency.key, idempotency.fingerprint, JSON.stringify(answer));
        });
      } finally {
        this.answering.delete(idempotency.key);
      }
    });
  }

  takeResponse(key: Caller, waitMs: number) {
    return this.authorized(key, (s) => takeResponse(s, waitMs));
  }

  continueRun(key: Caller) {
    return this.authorized(key, (s) => refuseChildInput(s) ?? s.runs.continueRun());
  }

  abort(key: Caller) {
    return this.authorized(key, (s) => s.runs.abort());
  }

  decideApproval(key: Caller, toolCallId: string, approve: boolean, reason?: string) {
    return this.authorized(key, (s) => this.decideHereOrBelow(s, toolCallId, approve, reason));
  }

  answerElicitation(key: Caller, elicitationId: string, action: ElicitationAction, content?: Record<string, unknown>) {
    return this.authorized(key, (s) => answerElicitation(s, elicitationId, action, content));
  }

  updateSettings(key: Caller, patch: SettingsPatch) {
    return this.authorized(key, (s) => updateSettings(s, patch));
  }

  /** PUT …/token-budget (the router checked the operator's token): this session's token budget from now on. */
  setTokenBudget(tokenBudget: number) {
    if (this.tombstone) return refuse("shut_down", goneMessage(this.tombstone));
    const session = this.session;
    if (!session) return refuse("not_found", "Session not found");
    session.meta.write(SESSION_BUDGET_KEY, tokenBudget);
    return ok({ tokenBudget });
  }

  /** POST …/mcp-servers: attach a server of the client's within MCP_ALLOWED_URLS; lists its tools. */
  addMcpServer(key: Caller, request: AddServerRequest) {
    return this.authorized(key, (s) => addSessionServer(s.meta, s.mcp, this.env, request));
  }

  removeMcpServer(key: Caller, name: string) {
    return this.authorized(key, (s) => removeSessionServer(s.meta, s.mcp, s.mcpCredentials, name));
  }

  /**
   * The OAuth callback of a flow this session holds (a server it added). No key: the one-time `state`,
   * which only this session issued and stored by its hash, is the credential. Answers what the Worker's
   * McpCredentials object answers for its flows, an AuthCompletion with the status the callback route
   * sends (so not a SessionResult): 404 when this object holds no live session.
   */
  async completeMcpAuth(state: string, code: string, iss?: string) {
    const session = this.session;
    if (!session || this.tombstone) return { ok: false as const, status: 404 as const, message: "Session not found" };
    const done = await completeAuthorization(
      session.mcpCredentials,
      state,
      code,
      (name) => readAddedServers(session.meta).find((s) => s.name === name),
      iss,
    );
    if (done.ok) await session.mcp.authorized(done.server);
    return done;
  }

  /** The Worker's McpCredentials completed a flow this session started: list that server's tools now. */
  async mcpAuthorized(server: string): Promise<void> {
    await this.session?.mcp.authorized(server);
  }

  /** POST …/schedules: checked and bounded by the schedule store; the alarm is re-armed for it. */
  createSchedule(key: Caller, request: ScheduleRequest) {
    return this.authorized(key, async (s) => {
      const created = s.schedules.create(request, Date.now());
      if (created.ok) await planAlarm(this.sessionAlarmParts(s));
      return created;
    });
  }

  listSchedules(key: Caller) {
    return this.authorized(key, (s) => ok({ schedules: s.schedules.list() }));
  }

  cancelSchedule(key: Caller, scheduleId: string) {
    return this.authorized(key, (s) =>
      s.schedules.cancel(scheduleId) ? ok({ id: scheduleId, cancelled: true }) : refuse("unknown_schedule", "Schedule not found"),
    );
  }

  /** DELETE: stops the run, closes streams, then erases the session's storage (a tombstone answers 410). */
  shutdown(key: Caller) {
    return this.authorized(key, () => this.end("deleted"));
  }

  /** The active run and the seq before its first event (GET …/chat/:chatId/stream), or null when none runs. */
  activeRun(key: Caller) {
    return this.authorized(key, (s): SessionResult<{ runId: string; afterSeq: number } | null> => {
      const runId = s.runs.activeRunId;
      return ok(runId === null ? null : { runId, afterSeq: s.log.beforeRun(runId) });
    });
  }

  /** The seq of the newest stored event: where a stream of what happens next starts. */
  lastEventSeq(key: Caller) {
    return this.authorized(key, (s) => ok({ lastEventSeq: s.log.lastSeq }));
  }

  /** The live event stream after `afterSeq`, as bytes; the router builds the SSE response around it. */
  openEvents(key: Caller, afterSeq: number) {
    return this.authorized(key, (s) => openEventStream(s, afterSeq));
  }

  /**
   * Sub-agents: a parent session starts its call's child here (settings and task stored together; a
   * started child answers `created: false`), follows, aborts and erases it, and answers its approvals.
   * Each call presents the parent's key hash, which the child stored as its own (sub-agent-child.ts).
   */
  async startSubAgent(parentKeyHash: string, settings: SessionSettings, task: string): Promise<SessionResult<{ created: boolean }>> {
    if (this.tombstone) return refuse("shut_down", goneMessage(this.tombstone));
    if (this.session) {
      const parent = authorizeParent(this.session, parentKeyHash);
      return parent.ok ? ok({ created: false }) : parent;
    }
    if (!settings.subAgent || settings.keyHash !== parentKeyHash) return refuse("wrong_key", "Not a sub-agent's parent");
    storeChild(this.ctx.storage.sql, settings, task);
    const session = await this.load(settings);
    // Starts the run for the stored task, then arms the heartbeat.
    await onAlarm(this.sessionAlarmParts(session));
    return ok({ created: true });
  }

  followSubAgent(parentKeyHash: string, afterSeq: number) {
    return this.asParent(parentKeyHash, (s) => followChild(s, afterSeq));
  }

  abortSubAgent(parentKeyHash: string) {
    return this.asParent(parentKeyHash, (s) => s.runs.abort());
  }

  decideSubAgentApproval(parentKeyHash: string, toolCallId: string, approve: boolean, reason?: string) {
    return this.asParent(parentKeyHash, (s) => this.decideHereOrBelow(s, toolCallId, approve, reason));
  }

  eraseSubAgent(parentKeyHash: string) {
    return this.asParent(parentKeyHash, () => this.end("deleted"));
  }

  /** An operator rejected a written tool (POST /v1/tools/:name/reject): its draft leaves this session. */
  dropWrittenDraft(name: string): boolean {
    return this.session ? dropDraft(this.session.store, name) : false;
  }

  /** The event stream's socket path (src/http/event-bridge.ts): a hibernatable socket, or the refusal as JSON. */
  override async fetch(request: Request): Promise<Response> {
    const afterSeq = Number(request.headers.get(EVENT_SOCKET_HEADERS.afterSeq) ?? 0);
    // Only the Worker reaches this object: the user header carries a user it verified (src/http/user-auth.ts).
    const userId = request.headers.get(EVENT_SOCKET_HEADERS.user);
    const caller: Caller = userId ? { userId } : (request.headers.get(EVENT_SOCKET_HEADERS.key) ?? undefined);
    const attached = await this.authorized(caller, (s) => attachEventSocket(s, afterSeq));
    return attached.ok ? attached.value : Response.json(attached);
  }

  /** Subscribers only listen; a socket's close needs no answer beyond completing the handshake. */
  override webSocketMessage(): void {}

  override webSocketClose(socket: WebSocket, code: number): void {
    answerClose(socket, code);
  }

  override async alarm(): Promise<void> {
    // Waking the object is the point: its constructor resumes an interrupted run.
    if (this.reloading) await this.reloading;
    const session = this.session;
    // A run a failed write interrupted (the object did not restart) is taken up here.
    session?.runs.resumeInterrupted();
    if (session && !this.tombstone && (await onAlarm(this.sessionAlarmParts(session))) === "expired") await this.end("expired");
  }

  /** Queues a user message; `accepted` runs in the same commit as its queue row (before any await). */
  private async accept(
    s: Session,
    kind: QueueKind,
    content: UserContent[],
    accepted?: (messageId: string) => void,
  ): Promise<SessionResult<{ messageId: string }>> {
    const queued = refuseChildInput(s) ?? (await refuseSpentUser(s)) ?? s.runs.enqueue(kind, content);
    if (!queued.ok) return queued;
    accepted?.(queued.value.messageId);
    await sessionIndex(this.env, s.settings)?.touched(s.runs.status, content);
    return queued;
  }

  /** A second init for an existing id: the kept answer when it repeats the creation, else a conflict. */
  private repeatCreation(creation: CreationKey | undefined): SessionResult<CreationAnswer> {
    const kept = creation && !this.tombstone ? new IdempotencyKeys(this.ctx.storage.sql).lookup(creation.idempotencyKey) : undefined;
    if (!creation || !kept?.answer)
      return refuse(
        "already_exists",
        creation
          ? "This Idempotency-Key created a session more than 24 h ago (or it was deleted); use a new key"
          : "Session already exists",
      );
    if (kept.fingerprint !== creation.fingerprint)
      return refuse("idempotency_mismatch", "This Idempotency-Key was used for a different request; use a new key");
    return ok(JSON.parse(kept.answer) as CreationAnswer);
  }

  /**
   * DELETE and the idle deadline: the tombstone first (from then on every call answers 410, and a restart
   * finishes the erase), then the run stops, streams and waiters end, children go, and storage is erased.
   */
  private async end(reason: Tombstone["reason"]): Promise<SessionResult<{ status: "shutdown" }>> {
    const session = this.session;
    if (!session) return ok({ status: "shutdown" });
    this.tombstone ??= writeTombstone(this.ctx.storage.sql, session.settings.id, reason, ownerOf(session.settings));
    await session.runs.close();
    session.hub.closeAll();
    session.waiters.wakeAll();
    void session.mcp.close();
    // Children go with their parent (before its storage, which lists them, is erased).
    await session.subAgents.eraseAll();
    // Off its user's list before its storage goes (a failure is logged; the list hides expired rows anyway).
    await sessionIndex(this.env, session.settings)?.dropped();
    if (this.session === session) {
      this.session = undefined;
      await eraseSession(this.ctx.storage, this.tombstone);
    }
    return ok({ status: "shutdown" });
  }

  /** Sets the live session at once (so calls arriving meanwhile see it), then waits for its drafts. */
  private async load(settings: SessionSettings): Promise<Session> {
    const { session, ready } = loadSession(this.ctx, this.env, settings, (settled) => this.restartAfterFailedWrite(session, settled));
    this.session = session;
    await ready;
    return session;
  }

  /**
   * A write failed: this instance of the session stores nothing more. Once its run has wound down, the
   * session is read again from storage, as a restart would (an interrupted run resumes from what was
   * stored); calls wait meanwhile. Live streams of the old instance end, so their clients reconnect.
   */
  private restartAfterFailedWrite(failed: Session, settled: Promise<void>): void {
    // Not inside blockConcurrencyWhile while the run winds down: its timers and I/O would wait on the block.
    const reload = settled.then(() =>
      this.ctx.blockConcurrencyWhile(async () => {
        if (this.session !== failed) return;
        failed.hub.endStreams();
        failed.waiters.wakeAll();
        void failed.mcp.close();
        this.session = undefined;
        await this.wake(false);
      }),
    );
    const reloading: Promise<void> = reload.finally(() => {
      if (this.reloading === reloading) this.reloading = undefined;
    });
    this.reloading = reloading;
  }

  private sessionAlarmParts(session: Session) {
    return { ...session, ctx: this.ctx, env: this.env };
  }

  /** This session's own approval, else one a live sub-agent child of it (or theirs) is waiting for. */
  private async decideHereOrBelow(session: Session, toolCallId: string, approve: boolean, reason?: string) {
    const here = decideApproval(session, toolCallId, approve, reason);
    if (here.ok || here.reason !== "unknown_approval") return here;
    return (await session.subAgents.decide(toolCallId, approve, reason)) ?? here;
  }

  private async asParent<T>(
    parentKeyHash: string,
    op: (session: Session) => SessionResult<T> | Promise<SessionResult<T>>,
  ): Promise<SessionResult<T>> {
    if (this.reloading) await this.reloading;
    if (this.tombstone) return refuse("shut_down", goneMessage(this.tombstone));
    const access = authorizeParent(this.session, parentKeyHash);
    return access.ok ? op(access.value) : access;
  }

  private async authorized<T>(
    key: Caller,
    op: (session: Session) => SessionResult<T> | Promise<SessionResult<T>>,
  ): Promise<SessionResult<T>> {
    if (this.tombstone) {
      // Only a caller who could open the session learns that it ended; anyone else hears "not found".
      const owner = this.tombstone.owner;
      const opened = owner ? await authorize({ settings: owner }, key) : undefined;
      return opened && !opened.ok ? opened : refuse("shut_down", goneMessage(this.tombstone));
    }
    const access = await authorize(this.session, key);
    return access.ok ? op(access.value) : access;
  }
}

/** What opens a session, kept in its tombstone (session-end.ts). */
const ownerOf = (settings: SessionSettings): Tombstone["owner"] => ({
  keyHash: settings.keyHash,
  ...(settings.userId === undefined ? {} : { userId: settings.userId }),
});
