/**
 * The typed client for the Worker's HTTP API (docs/api.md "HTTP API (v1)"), for browsers and Node 22 alike:
 * `createClient(...)` creates or attaches to sessions; a SessionHandle wraps one session's routes and its
 * reconnecting event stream. No dependencies, only fetch. Every non-2xx answer throws ApiClientError;
 * a network failure throws ApiClientError with status 0 and code "network_error". Creating a session,
 * sending a message and a follow-up carry an Idempotency-Key and are retried with it (retry-policy.ts).
 */
import { ApiClientError, errorFromResponse } from "./errors.ts";
import { streamSessionEvents } from "./event-stream.ts";
import { isRetryable, MAX_ATTEMPTS, newIdempotencyKey, retryWaitMs } from "./retry-policy.ts";
import type {
  ApprovalResult,
  AssistantMessage,
  ClientOptions,
  CreateSessionOptions,
  EventStreamOptions,
  McpServerEntry,
  MemoryList,
  MessageContent,
  MessagePage,
  ScheduleEntry,
  ScheduleOptions,
  SessionSettingsPatch,
  SessionPage,
  SessionSnapshot,
  SessionStreamEvent,
  ToolList,
} from "./types.ts";

/** `idempotent`: send an Idempotency-Key and retry network failures and 5xx with it. */
type RequestOptions = { body?: unknown; bearer?: string; query?: Record<string, string>; idempotent?: boolean };

/** The transport shared by the client and its session handles. */
class Transport {
  readonly baseUrl: string;
  readonly fetch: typeof fetch;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    // Called as a plain function: a browser's fetch throws "Illegal invocation" when called as a method of another object.
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  url(path: string, query?: Record<string, string>): string {
    const search = query ? `?${new URLSearchParams(query).toString()}` : "";
    return `${this.baseUrl}${path}${search}`;
  }

  /** JSON in, JSON out; null for 204. An idempotent call is retried under one key (retry-policy.ts). */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    if (!options.idempotent) return this.attempt<T>(method, path, options, undefined);
    const key = newIdempotencyKey();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt<T>(method, path, options, key);
      } catch (err) {
        if (!(err instanceof ApiClientError) || !isRetryable(err) || attempt >= MAX_ATTEMPTS) throw err;
        await new Promise((resolve) => setTimeout(resolve, retryWaitMs(attempt + 1, err)));
      }
    }
  }

  private async attempt<T>(method: string, path: string, options: RequestOptions, idempotencyKey: string | undefined): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
    if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
    const init: RequestInit = { method, headers };
    if (options.body !== undefined) {
      headers["content-type"] = "application/json";
      init.body = JSON.stringify(options.body);
    }
    const fetchImpl = this.fetch;
    let response: Response;
    try {
      response = await fetchImpl(this.url(path, options.query), init);
    } catch (err) {
      const error = new ApiClientError(
        0,
        "network_error",
        `Could not reach ${this.baseUrl || "the server"}: ${err instanceof Error ? err.message : String(err)}`,
      );
      throw Object.assign(error, { cause: err });
    }
    if (!response.ok) throw await errorFromResponse(response);
    if (response.status === 204) return null as T;
    const text = await response.text();
    try {
      return (text === "" ? null : JSON.parse(text)) as T;
    } catch {
      throw new ApiClientError(response.status, "bad_response", `Expected JSON from ${method} ${path}`);
    }
  }
}

/** One session, addressed by its id and authorized by its key (returned once at creation: keep it). */
export class SessionHandle {
  private readonly path: string;

  constructor(
    private readonly transport: Transport,
    private readonly client: AgentClient,
    readonly id: string,
    readonly key: string,
  ) {
    this.path = `/v1/sessions/${encodeURIComponent(id)}`;
  }

  /** runAgent: queue a user message; a run starts when the session is idle. 429 (queue_full) when full. */
  send(content: MessageContent): Promise<{ messageId: string }> {
    return this.call("POST", "/messages", { content }, true);
  }

  /** Queue a follow-up; the running loop takes it at its next step. */
  followUp(content: MessageContent): Promise<{ messageId: string }> {
    return this.call("POST", "/follow-ups", { content }, true);
  }

  abort(): Promise<{ aborted: boolean }> {
    return this.call("POST", "/abort");
  }

  approve(toolCallId: string, reason?: string): Promise<ApprovalResult> {
    return this.decide(toolCallId, true, reason);
  }

  reject(toolCallId: string, reason?: string): Promise<ApprovalResult> {
    return this.decide(toolCallId, false, reason);
  }

  /** Answers an MCP server's question (event mcpElicitation); `content` with accept, checked against its form. */
  answerElicitation(
    elicitationId: string,
    action: "accept" | "decline" | "cancel",
    content?: Record<string, unknown>,
  ): Promise<{ elicitationId: string; action: string }> {
    return this.call(
      "POST",
      `/elicitations/${encodeURIComponent(elicitationId)}`,
      content === undefined ? { action } : { action, content },
    );
  }

  /** The next final assistant message, waiting up to `waitMs` (server cap 60 s); null when none came. */
  takeResponse(waitMs = 0): Promise<AssistantMessage | null> {
    return this.transport.request("GET", `${this.path}/responses/next`, { bearer: this.key, query: { waitMs: String(waitMs) } });
  }

  snapshot(): Promise<SessionSnapshot> {
    return this.call("GET", "");
  }

  /** A page of history, oldest first: the newest page, or the one before `before` (a cursor from a page or the snapshot). */
  messages(options: { before?: number; limit?: number } = {}): Promise<MessagePage> {
    const query: Record<string, string> = {};
    if (options.before !== undefined) query.before = String(options.before);
    if (options.limit !== undefined) query.limit = String(options.limit);
    return this.transport.request("GET", `${this.path}/messages`, { bearer: this.key, query });
  }

  /** Run the loop again on the current history (after a run ended by a terminating tool). 409 while running. */
  continue(): Promise<{ runId: string }> {
    return this.call("POST", "/continue");
  }

  /** Ends the session and erases its storage; later calls answer 410. */
  shutdown(): Promise<{ status: "shutdown" }> {
    return this.call("DELETE", "");
  }

  /** Changes settings of this session, e.g. `{ requireApproval: ["*"] }`; applies from the next tool call. */
  updateSettings(patch: SessionSettingsPatch): Promise<SessionSettingsPatch> {
    return this.call("PATCH", "", patch);
  }

  listTools(): Promise<ToolList> {
    return this.client.listTools();
  }

  /** Attaches an MCP server of your own (its URL must match the Worker's MCP_ALLOWED_URLS; 403 otherwise). */
  addMcpServer(server: {
    name: string;
    url: string;
    headers?: Record<string, string>;
    /** A client registered beforehand with the server's authorization server (else it registers itself). */
    clientId?: string;
    clientSecret?: string;
  }): Promise<McpServerEntry> {
    return this.call("POST", "/mcp-servers", server);
  }

  /** Detaches a server this session added: its tools and its OAuth tokens go. */
  removeMcpServer(name: string): Promise<{ removed: string }> {
    return this.call("DELETE", `/mcp-servers/${encodeURIComponent(name)}`);
  }

  /** Has the session send itself `message` later (once, or repeatedly); 400 names a bad spec, 429 over MAX_SCHEDULES. */
  schedule(options: ScheduleOptions): Promise<{ id: string; nextRunAt: number }> {
    return this.call("POST", "/schedules", options);
  }

  /** The session's schedules, soonest first. */
  schedules(): Promise<{ schedules: ScheduleEntry[] }> {
    return this.call("GET", "/schedules");
  }

  /** Cancels a schedule; 404 when the session has none by that id. */
  cancelSchedule(scheduleId: string): Promise<{ id: string; cancelled: true }> {
    return this.call("DELETE", `/schedules/${encodeURIComponent(scheduleId)}`);
  }

  /**
   * The session's events, each once and in seq order, across drops and reconnects. Start after a
   * snapshot with `{ lastEventId: snapshot.lastEventSeq }`; stop with `signal` or by leaving the loop.
   */
  events(options: EventStreamOptions = {}): AsyncGenerator<SessionStreamEvent, void, undefined> {
    return streamSessionEvents(
      { url: this.transport.url(`${this.path}/events`), headers: { authorization: `Bearer ${this.key}` }, fetch: this.transport.fetch },
      options,
    );
  }

  private decide(toolCallId: string, approve: boolean, reason?: string): Promise<ApprovalResult> {
    const body = reason === undefined ? { approve } : { approve, reason };
    return this.call("POST", `/tool-calls/${encodeURIComponent(toolCallId)}/approval`, body);
  }

  private call<T>(method: string, suffix: string, body?: unknown, idempotent = false): Promise<T> {
    return this.transport.request<T>(method, `${this.path}${suffix}`, { bearer: this.key, body, idempotent });
  }
}

export class AgentClient {
  private readonly transport: Transport;

  constructor(private readonly options: ClientOptions) {
    this.transport = new Transport(options);
  }

  async createSession(options: CreateSessionOptions = {}): Promise<SessionHandle> {
    const created = await this.transport.request<{ id: string; key: string }>("POST", "/v1/sessions", {
      bearer: (await this.userToken()) ?? this.options.apiToken,
      body: options,
      idempotent: true,
    });
    return this.session(created.id, created.key);
  }

  /** The signed-in user's sessions, most recently active first (needs `userToken`); pass `next` as `before`. */
  async listSessions(options: { limit?: number; before?: string } = {}): Promise<SessionPage> {
    const query: Record<string, string> = {};
    if (options.limit !== undefined) query.limit = String(options.limit);
    if (options.before !== undefined) query.before = options.before;
    return this.transport.request("GET", "/v1/sessions", { bearer: await this.requireUserToken(), query });
  }

  /** Deletes one of the user's sessions (needs `userToken`), as its key would. */
  async deleteSession(id: string): Promise<{ status: "shutdown" }> {
    return this.transport.request("DELETE", `/v1/sessions/${encodeURIComponent(id)}`, { bearer: await this.requireUserToken() });
  }

  /** The user's memories: full-text search, best first, or the newest without `query` (needs `userToken`). */
  async memories(options: { query?: string; limit?: number } = {}): Promise<MemoryList> {
    const query: Record<string, string> = {};
    if (options.query !== undefined) query.query = options.query;
    if (options.limit !== undefined) query.limit = String(options.limit);
    return this.transport.request("GET", "/v1/memories", { bearer: await this.requireUserToken(), query });
  }

  /** Forgets one of the user's memories (needs `userToken`). */
  async deleteMemory(id: string): Promise<{ id: string; deleted: true }> {
    return this.transport.request("DELETE", `/v1/memories/${encodeURIComponent(id)}`, { bearer: await this.requireUserToken() });
  }

  private async userToken(): Promise<string | undefined> {
    const token = this.options.userToken;
    return typeof token === "function" ? await token() : token;
  }

  private async requireUserToken(): Promise<string> {
    const token = await this.userToken();
    if (!token) throw new ApiClientError(0, "no_user_token", "This call needs a signed-in user's token (createClient({ userToken }))");
    return token;
  }

  /** A handle for an existing session (e.g. ids kept across a page reload); nothing is sent yet. */
  session(id: string, key: string): SessionHandle {
    return new SessionHandle(this.transport, this, id, key);
  }

  listTools(): Promise<ToolList> {
    return this.transport.request("GET", "/v1/tools", { bearer: this.options.apiToken });
  }
}

export function createClient(options: ClientOptions): AgentClient {
  return new AgentClient(options);
}
