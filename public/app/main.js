// @ts-check
/**
 * The web page's controller: creates or restores a session (id and key kept in localStorage), renders its
 * snapshot, then follows its event stream from snapshot.lastEventSeq, and wires the controls (send, abort,
 * approvals, new session, tools and schedules panels). The client SDK (./client.js, built from src/client) reconnects by
 * itself and yields each event once, in seq order; this module shows the connection state and applies them.
 */
import { ApiClientError, createClient } from "../client.js";
import { ChatView } from "./chat-view.js";
import { el } from "./dom.js";
import { hideExamples, showExamples } from "./example-prompts.js";
import { RunTimeline } from "./run-timeline.js";
import * as saved from "./session-store.js";
import { renderSchedules } from "./schedules-panel.js";
import { renderTools, renderToolsError } from "./tools-panel.js";
import { renderConversations } from "./conversations-panel.js";

/** @import { ConnectionState, CreateSessionOptions, McpToolEntry, ScheduleEntry, SessionHandle, SessionStreamEvent, ToolList } from "../client.js" */

/** Events kept in the event-log panel; older lines are dropped so a long session stays light. */
const EVENT_LOG_LIMIT = 2_000;
/** Older messages fetched per page when the reader scrolls to the top of the conversation. */
const HISTORY_PAGE = 50;
/** How close to the top (px) the reader must scroll before the page before is fetched. */
const LOAD_OLDER_THRESHOLD_PX = 200;
/** Wait before trying again to load a session when the server could not be reached. */
const RESTORE_RETRY_MS = 2_000;

/**
 * The page's element with this id, of the expected kind (index.html and this module must agree).
 * @template {HTMLElement} T
 * @param {string} id
 * @param {{ new (): T; prototype: T }} kind
 * @returns {T}
 */
function byId(id, kind) {
  const node = document.getElementById(id);
  if (!(node instanceof kind)) throw new Error(`index.html has no ${kind.name} #${id}`);
  return node;
}

const ui = {
  messages: byId("messages", HTMLOListElement),
  examples: byId("examples", HTMLElement),
  form: byId("composer", HTMLFormElement),
  prompt: byId("prompt", HTMLTextAreaElement),
  send: byId("send", HTMLButtonElement),
  abort: byId("abort", HTMLButtonElement),
  newSession: byId("new-session", HTMLButtonElement),
  requireApproval: byId("require-approval", HTMLInputElement),
  connection: byId("connection", HTMLSpanElement),
  sessionId: byId("session-id", HTMLElement),
  runState: byId("run-state", HTMLSpanElement),
  tools: byId("tools", HTMLDivElement),
  refreshTools: byId("refresh-tools", HTMLButtonElement),
  schedules: byId("schedules", HTMLDivElement),
  eventLog: byId("event-log", HTMLOListElement),
  settings: byId("settings", HTMLFormElement),
  apiToken: byId("api-token", HTMLInputElement),
  userToken: byId("user-token", HTMLInputElement),
  conversationsPanel: byId("conversations-panel", HTMLElement),
  conversations: byId("conversations", HTMLDivElement),
};

/** @typedef {ConnectionState | "failed"} ShownConnectionState */

let client = makeClient();
/** @type {SessionHandle | undefined} */
let session;
/** @type {AbortController | undefined} */
let stream;
let generation = 0;
/** @type {number | null} Cursor of the history page before the oldest message shown; null when the start is shown. */
let historyBefore = null;
let loadingOlder = false;
let running = false;
/** @type {string[]} */
let sessionTools = [];
/** @type {McpToolEntry[]} */
let sessionMcpTools = [];
/** @type {ToolList | undefined} */
let toolList;

/** The live run's waterfall, shown under its answer when it ends. */
const runTimeline = new RunTimeline();
const view = new ChatView(ui.messages, {
  onDecide: async (toolCallId, approve) => {
    if (!session) throw new Error("No session");
    return approve ? session.approve(toolCallId) : session.reject(toolCallId);
  },
  onAnswer: async (elicitationId, action, content) => {
    if (!session) throw new Error("No session");
    return session.answerElicitation(elicitationId, action, content);
  },
  onSummary: async () => {
    if (!session) throw new Error("No session");
    return (await session.snapshot()).contextSummary ?? null;
  },
});

function makeClient() {
  const apiToken = saved.loadApiToken() || undefined;
  const userToken = saved.loadUserToken() || undefined;
  return createClient({ baseUrl: "", apiToken, ...(userToken ? { userToken } : {}) });
}

// ── A signed-in user's conversations ─────────────────────────────────────
/** A token passed once as `#token=…` is kept (see session-store.js) and taken out of the address bar. */
function takeTokenFromUrl() {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (!match) return;
  saved.saveUserToken(decodeURIComponent(match[1] ?? ""));
  history.replaceState(null, "", `${location.pathname}${location.search}`);
}

/** The user's sessions in the panel; hidden without a token or when the server has no sign-in. */
async function refreshConversations() {
  const token = saved.loadUserToken();
  if (!token) return void (ui.conversationsPanel.hidden = true);
  try {
    const { sessions } = await client.listSessions({ limit: 50 });
    ui.conversationsPanel.hidden = false;
    renderConversations(ui.conversations, sessions, session?.id, { onOpen: openConversation, onDelete: deleteConversation });
  } catch (err) {
    ui.conversationsPanel.hidden = !(err instanceof ApiClientError && err.status === 401);
    if (!ui.conversationsPanel.hidden)
      ui.conversations.replaceChildren(el("p", { class: "muted", text: "Sign in again: the token was refused." }));
  }
}

/** Opens one of the user's sessions with their token, which opens every session of theirs. */
/** @param {string} id */
async function openConversation(id) {
  const token = saved.loadUserToken();
  if (!token || id === session?.id) return;
  // No key: a restore opens it with the user's token as it is then (this one expires; the app renews it).
  saved.saveSession(id, "");
  try {
    await attach(client.session(id, token));
  } catch (err) {
    view.notice(`Could not open the conversation: ${describe(err)}`, "error");
  }
  void refreshConversations();
}

/** @param {string} id */
async function deleteConversation(id) {
  try {
    await client.deleteSession(id);
  } catch (err) {
    view.notice(`Could not delete the conversation: ${describe(err)}`, "error");
  }
  if (id === session?.id) {
    saved.forgetSession();
    await startNewSession();
  }
  await refreshConversations();
}

// ── Session lifecycle ────────────────────────────────────────────────────
/** @param {SessionHandle} handle */
async function attach(handle) {
  const current = ++generation;
  stream?.abort();
  session = handle;
  ui.sessionId.textContent = handle.id;
  setConnection("connecting");
  const snapshot = await handle.snapshot();
  if (current !== generation) return;
  view.clear();
  ui.eventLog.replaceChildren();
  historyBefore = snapshot.messagesBefore ?? null;
  // A page's cursor is its first message's seq (1 for the first): where a page starts in history.
  view.renderHistory(snapshot.messages, historyBefore ?? 1, snapshot.contextSummary);
  if (snapshot.status === "running") view.markUnfinishedRunning();
  for (const pending of snapshot.pendingApprovals) view.approvalRequired(pending);
  for (const s of snapshot.mcpServers ?? [])
    if (s.status === "authRequired") view.connectRequired({ server: s.name, authorizationUrl: s.authorizationUrl });
  for (const pending of snapshot.pendingElicitations ?? []) view.elicitation(pending);
  sessionTools = snapshot.tools;
  if (Array.isArray(snapshot.requireApproval)) ui.requireApproval.checked = snapshot.requireApproval.includes("*");
  sessionMcpTools = snapshot.mcpTools ?? [];
  showTools();
  if (snapshot.messages.length === 0 && historyBefore === null) showExamples(ui.examples, [...sessionTools, "listTools"], sendText);
  else hideExamples(ui.examples);
  showSchedules(snapshot.schedules ?? []);
  setRunning(snapshot.status === "running");
  const open = snapshot.status !== "shutdown";
  setComposerEnabled(open);
  if (!open) {
    setConnection("closed");
    view.notice("This session was shut down. Start a new session to continue.");
    return;
  }
  void follow(handle, current, snapshot.lastEventSeq);
  void loadOlderWhileRoom(handle, current);
}

/**
 * The page before the oldest message shown, put above it (the snapshot carries only the newest page).
 * @param {SessionHandle} handle
 * @param {number} current the attach generation this page belongs to
 */
async function loadOlder(handle, current) {
  if (loadingOlder || historyBefore === null) return;
  loadingOlder = true;
  try {
    const page = await handle.messages({ before: historyBefore, limit: HISTORY_PAGE });
    if (current !== generation) return;
    view.prependHistory(page.messages, page.before ?? 1);
    historyBefore = page.before;
  } catch (err) {
    if (current === generation) view.notice(`Could not load older messages: ${describe(err)}`, "error");
    historyBefore = null;
  } finally {
    loadingOlder = false;
  }
}

/**
 * Until the conversation can scroll (a tall window shows more than a page), older pages fill it.
 * @param {SessionHandle} handle
 * @param {number} current
 */
async function loadOlderWhileRoom(handle, current) {
  const scroller = ui.messages.parentElement;
  while (scroller && historyBefore !== null && !loadingOlder && current === generation && scroller.scrollHeight <= scroller.clientHeight) {
    await loadOlder(handle, current);
  }
}

ui.messages.parentElement?.addEventListener("scroll", (event) => {
  if (session && event.currentTarget instanceof HTMLElement && event.currentTarget.scrollTop < LOAD_OLDER_THRESHOLD_PX)
    void loadOlder(session, generation);
});

/**
 * Applies the session's events after `afterSeq` until another session is attached.
 * @param {SessionHandle} handle
 * @param {number} current the attach generation this stream belongs to
 * @param {number} afterSeq
 */
async function follow(handle, current, afterSeq) {
  const controller = new AbortController();
  stream = controller;
  /** @type {(state: ConnectionState, detail?: { delayMs?: number }) => void} */
  const onConnectionChange = (state, detail) => {
    if (current === generation) setConnection(state, detail);
  };
  try {
    for await (const event of handle.events({ lastEventId: afterSeq, signal: controller.signal, onConnectionChange })) {
      if (current !== generation) return;
      if (!apply(event)) return;
    }
  } catch (err) {
    if (current !== generation) return;
    setConnection("failed");
    view.notice(`The event stream stopped: ${describe(err)}`, "error");
  }
}

/**
 * Shows one event; false when the stream should stop (the page reloads the session instead).
 * @param {SessionStreamEvent} event
 * @returns {boolean}
 */
function apply(event) {
  if (event.type === "eventsDropped") {
    view.notice("Some events are no longer available; reloading the conversation.");
    if (session) void attach(session).catch(reportRestoreFailure);
    return false;
  }
  logEvent(event);
  const waterfall = runTimeline.observe(event);
  switch (event.type) {
    case "runStart":
      hideExamples(ui.examples); // a message sent from elsewhere (another tab, the API) started a run
      setRunning(true);
      break;
    case "messageStart":
      view.startAssistant();
      break;
    case "messageDelta":
      view.appendDelta(event.text);
      break;
    case "messageAbandoned":
      // The streamed text will not be completed (a failed or restarted LLM call): drop it.
      view.dropStreaming();
      break;
    case "contextTrimmed":
      break; // the event log shows it; the conversation keeps every message
    case "contextCompacted":
      view.compacted(event);
      break;
    case "messageEnd":
      view.renderMessage(event.message);
      break;
    case "toolExecStart":
      view.toolStart(event);
      break;
    case "toolExecUpdate":
      view.toolUpdate(event);
      break;
    case "toolExecEnd":
      view.toolEnd(event);
      if (SCHEDULE_TOOLS.has(event.toolName)) void refreshSchedules();
      break;
    case "scheduleFired":
      void refreshSchedules();
      break;
    case "scheduleRefused":
      view.notice(
        `A schedule was not sent: ${event.budget.scope === "session" ? "this session's" : "your daily"} token budget is spent (${event.budget.used} of ${event.budget.limit} tokens). It is due again ${new Date(event.nextRunAt).toLocaleString()}.`,
        "error",
      );
      void refreshSchedules();
      break;
    case "toolApprovalRequired":
      view.approvalRequired(event);
      break;
    case "mcpElicitation":
      view.elicitation(event);
      break;
    case "runEnd":
      setRunning(false);
      // A terminating tool batch ends the run with an answer that history does not hold.
      if (event.stopReason === "tool_use_terminated") view.renderFinal(event.response);
      if (waterfall) view.showTimeline(waterfall);
      // The list's order and the new conversation's title change as a run ends.
      void refreshConversations();
      break;
    case "llmRetry":
      view.notice(
        `The model did not answer (${event.message}); trying again in ${Math.ceil(event.delayMs / 1000)} s (retry ${event.retry}).`,
      );
      break;
    case "budgetExceeded":
      view.notice(
        `Token budget spent: ${event.scope === "session" ? "this session's" : "your daily"} budget is ${event.limit} tokens and ${event.used} were used.`,
        "error",
      );
      break;
    case "guardrailTripped":
      view.notice(`Refused by the ${event.stage} guardrail "${event.guardrail}": ${event.reason}`, "error");
      break;
    case "modelFallback":
      view.notice(`The model ${event.from} failed (${event.reason}); this answer comes from ${event.to}.`);
      break;
    case "error":
      view.notice(event.message, "error");
      break;
    case "mcpAuthRequired":
      view.connectRequired(event);
      break;
    case "mcpToolsChanged":
      view.notice(
        event.changed.length > 0
          ? `MCP server "${event.server}" changed the definition of ${event.changed.join(", ")}: check them before relying on them.`
          : `MCP server "${event.server}" changed its tools.`,
        event.changed.length > 0 ? "error" : "info",
      );
      void refreshTools();
      break;
    default:
      unhandled(event);
  }
  return true;
}

/**
 * Every event type must be handled in `apply` (tsc fails on this call until it is). A server newer than
 * this page may still send one at run time: it is logged, not shown.
 * @param {never} _event
 */
function unhandled(_event) {}

/**
 * The control applies to the session in view (and is remembered for new sessions).
 * @param {boolean} checked
 */
async function changeRequireApproval(checked) {
  saved.saveRequireApproval(checked);
  if (!session) return;
  try {
    await session.updateSettings({ requireApproval: checked ? ["*"] : [] });
    view.notice(
      checked ? "Every tool call in this session now waits for your approval." : "Tool calls in this session no longer wait for approval.",
    );
  } catch (err) {
    ui.requireApproval.checked = !checked;
    view.notice(`Could not change the approval setting: ${describe(err)}`, "error");
  }
}

async function startNewSession() {
  ui.newSession.disabled = true;
  try {
    const options = ui.requireApproval.checked ? { requireApproval: ["*"] } : {};
    const handle = await createSessionAskingForToken(options);
    saved.saveSession(handle.id, handle.key);
    await attach(handle);
    ui.prompt.focus();
    void refreshConversations();
  } catch (err) {
    setConnection("failed");
    const hint = err instanceof ApiClientError && err.status === 401 ? " Set the API token under Settings." : "";
    view.notice(`Could not create a session: ${describe(err)}.${hint}`, "error");
  } finally {
    ui.newSession.disabled = false;
  }
}

/**
 * A 401 means the server wants its API token: ask for it, keep it in this browser, and try again.
 * @param {CreateSessionOptions} options
 */
async function createSessionAskingForToken(options) {
  for (;;) {
    try {
      return await client.createSession(options);
    } catch (err) {
      if (!(err instanceof ApiClientError) || err.status !== 401) throw err;
      const token = window.prompt("This agent needs its API token (the API_TOKEN secret set by its owner):", "")?.trim();
      if (!token) throw err;
      saved.saveApiToken(token);
      ui.apiToken.value = token;
      client = makeClient();
    }
  }
}

async function restore() {
  const remembered = saved.loadSession();
  // A session opened from the conversations list has no key of its own: the user's token opens it.
  const key = remembered?.key || saved.loadUserToken();
  if (!remembered || !key) return startNewSession();
  try {
    await attach(client.session(remembered.id, key));
  } catch (err) {
    if (err instanceof ApiClientError && [401, 403, 404].includes(err.status)) {
      saved.forgetSession();
      return startNewSession();
    }
    reportRestoreFailure(err);
  }
}

/** @param {unknown} err */
function reportRestoreFailure(err) {
  setConnection("reconnecting", { delayMs: RESTORE_RETRY_MS });
  ui.runState.textContent = `Cannot load the session: ${describe(err)}`;
  setTimeout(() => void restore(), RESTORE_RETRY_MS);
}

// ── Controls ─────────────────────────────────────────────────────────────
ui.form.addEventListener("submit", (event) => {
  event.preventDefault();
  void sendText(ui.prompt.value.trim());
});

/** Sends a message typed or picked from the examples; on failure it goes back into the message box. */
/** @param {string} text */
async function sendText(text) {
  if (!text || !session) return;
  ui.prompt.value = "";
  hideExamples(ui.examples);
  const bubble = view.addPendingUser(text);
  try {
    await session.send(text);
  } catch (err) {
    view.removePendingUser(bubble);
    ui.prompt.value = text;
    view.notice(`Not sent: ${describe(err)}`, "error");
  }
}

ui.prompt.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    ui.form.requestSubmit();
  } else if (event.key === "Escape" && running) {
    event.preventDefault();
    void abortRun();
  }
});

ui.abort.addEventListener("click", () => void abortRun());
ui.newSession.addEventListener("click", () => void startNewSession());
ui.requireApproval.addEventListener("change", () => void changeRequireApproval(ui.requireApproval.checked));
ui.refreshTools.addEventListener("click", () => void loadTools());
ui.settings.addEventListener("submit", (event) => event.preventDefault());
ui.apiToken.addEventListener("change", () => {
  saved.saveApiToken(ui.apiToken.value.trim());
  client = makeClient();
  void loadTools();
});
ui.userToken.addEventListener("change", () => {
  saved.saveUserToken(ui.userToken.value.trim());
  client = makeClient();
  void refreshConversations();
});

async function abortRun() {
  if (!session) return;
  ui.abort.disabled = true;
  try {
    await session.abort();
  } catch (err) {
    view.notice(`Could not abort: ${describe(err)}`, "error");
  } finally {
    ui.abort.disabled = false;
  }
}

// ── Status, tools, event log ─────────────────────────────────────────────
/** @param {boolean} on */
function setRunning(on) {
  running = on;
  ui.abort.hidden = !on;
  document.body.dataset.running = String(on);
  ui.runState.textContent = on ? "Working…" : "Idle";
}

/** @param {boolean} on */
function setComposerEnabled(on) {
  ui.prompt.disabled = !on;
  ui.send.disabled = !on;
}

/** Tools whose calls change the session's schedules: the panel is read again after each. */
const SCHEDULE_TOOLS = new Set(["schedule", "cancelSchedule"]);

/** @param {ScheduleEntry[]} schedules */
function showSchedules(schedules) {
  renderSchedules(ui.schedules, schedules, cancelSchedule);
}

async function refreshSchedules() {
  const handle = session;
  if (!handle) return;
  try {
    const { schedules } = await handle.schedules();
    if (handle === session) showSchedules(schedules);
  } catch (err) {
    view.notice(`Could not list the schedules: ${describe(err)}`, "error");
  }
}

/** @param {string} scheduleId */
async function cancelSchedule(scheduleId) {
  if (!session) return;
  try {
    await session.cancelSchedule(scheduleId);
  } catch (err) {
    view.notice(`Could not cancel the schedule: ${describe(err)}`, "error");
  }
  await refreshSchedules();
}

/** @type {Record<ShownConnectionState, string>} */
const CONNECTION_LABELS = {
  connecting: "Connecting…",
  open: "Live",
  reconnecting: "Reconnecting…",
  closed: "Disconnected",
  failed: "Disconnected",
};

/**
 * @param {ShownConnectionState} state
 * @param {{ delayMs?: number }} [detail]
 */
function setConnection(state, detail) {
  ui.connection.dataset.state = state;
  const seconds = detail?.delayMs !== undefined ? Math.max(1, Math.round(detail.delayMs / 1000)) : undefined;
  ui.connection.textContent = state === "reconnecting" && seconds ? `Reconnecting in ${seconds} s…` : (CONNECTION_LABELS[state] ?? state);
}

async function loadTools() {
  try {
    toolList = await client.listTools();
    showTools();
  } catch (err) {
    renderToolsError(ui.tools, `Cannot list tools: ${describe(err)}`);
  }
}

/** Re-reads the session's tools (after a Connect in another tab, or a server's changed list). */
async function refreshTools() {
  if (!session) return;
  const snapshot = await session.snapshot().catch(() => undefined);
  if (!snapshot) return;
  sessionTools = snapshot.tools;
  sessionMcpTools = snapshot.mcpTools ?? [];
  showTools();
}

// Back from an authorization tab: the server's tools may be there now.
window.addEventListener("focus", () => void refreshTools());

function showTools() {
  if (toolList) renderTools(ui.tools, toolList, sessionTools, sessionMcpTools);
}

/** @param {Exclude<SessionStreamEvent, { type: "eventsDropped" }>} event */
function logEvent(event) {
  const detail = "toolName" in event ? ` ${event.toolName}` : event.type === "runEnd" ? ` ${event.stopReason}` : "";
  ui.eventLog.append(el("li", { dataset: { seq: String(event.seq), type: event.type }, text: `#${event.seq} ${event.type}${detail}` }));
  while (ui.eventLog.childElementCount > EVENT_LOG_LIMIT) ui.eventLog.firstElementChild?.remove();
}

/** @param {unknown} err */
function describe(err) {
  return err instanceof Error ? err.message : String(err);
}

takeTokenFromUrl();
client = makeClient();
ui.requireApproval.checked = saved.loadRequireApproval();
ui.apiToken.value = saved.loadApiToken();
ui.userToken.value = saved.loadUserToken();
void loadTools();
void restore();
void refreshConversations();
