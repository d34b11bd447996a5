// @ts-check
/**
 * The conversation: user and assistant bubbles, streaming assistant text, tool cards and notices, in the
 * order events happen. Fed by main.js with snapshot messages (history) and then live events; both paths
 * go through renderMessage, so a reload shows what the live page showed. Invariants: one card per tool
 * call id; a streamed bubble is replaced by its final message text at messageEnd (nothing shown twice).
 */
import { el, textOfContent } from "./dom.js";
import { elicitationForm } from "./elicitation-form.js";
import { ToolCard } from "./tool-card.js";

/** @import { AgentMessage, AssistantMessage, PendingApproval, SessionSnapshot, StampedEvent, UserMessage } from "../client.js" */
/** @typedef {NonNullable<SessionSnapshot["contextSummary"]>} ContextSummary */
/**
 * The stamped event of one type.
 * @template {StampedEvent["type"]} T
 * @typedef {Extract<StampedEvent, { type: T }>} EventOf
 */

export class ChatView {
  /**
   * @param {HTMLElement} list
   * @param {{ onDecide: (toolCallId: string, approve: boolean) => Promise<unknown>; onAnswer?: (elicitationId: string, action: "accept" | "decline" | "cancel", content?: Record<string, unknown>) => Promise<unknown>; onSummary?: () => Promise<ContextSummary | null> }} handlers
   */
  constructor(list, { onDecide, onAnswer, onSummary }) {
    this.list = list;
    this.onDecide = onDecide;
    this.onAnswer = onAnswer;
    this.onSummary = onSummary;
    /** @type {Set<string>} elicitations shown, so a replayed event does not show one twice */
    this.asked = new Set();
    /** @type {Map<string, ToolCard>} */
    this.cards = new Map();
    /** @type {HTMLElement | undefined} */
    this.streaming = undefined;
    /** @type {{ text: string; bubble: HTMLElement }[]} */
    this.pendingUsers = [];
    /** @type {string | undefined} */
    this.lastNotice = undefined;
    /**
     * A restored conversation's compaction marker while its place (after message `summarizedMessages`)
     * lies in a page not shown yet: it waits at the top until that page is loaded.
     * @type {{ element: HTMLElement; summarizedMessages: number } | undefined}
     */
    this.waitingMarker = undefined;
    // Follow the conversation only while the reader is at its end, so scrolling back is not undone.
    this.following = true;
    list.parentElement?.addEventListener("scroll", () => {
      const scroller = /** @type {HTMLElement} */ (list.parentElement);
      this.following = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 80;
    });
  }

  clear() {
    this.list.replaceChildren();
    this.waitingMarker = undefined;
    this.cards.clear();
    this.streaming = undefined;
    this.asked.clear();
    this.pendingUsers = [];
  }

  /**
   * The newest page of a restored conversation; with the current summary, its marker goes where the
   * model's view was compacted (after message `summarizedMessages`), or at the top while that place is in
   * an older page.
   * @param {AgentMessage[]} messages
   * @param {number} firstSeq the first message's position in history (1 for the first)
   * @param {ContextSummary | null} [summary]
   */
  renderHistory(messages, firstSeq, summary) {
    if (summary) this.waitingMarker = { element: this.compactionMarker(summary, summary), summarizedMessages: summary.summarizedMessages };
    this.renderPage(messages, firstSeq);
    if (this.waitingMarker) this.list.prepend(this.waitingMarker.element);
  }

  /**
   * Renders a page of history, placing a waiting compaction marker when its place is among it.
   * @param {AgentMessage[]} messages
   * @param {number} firstSeq
   */
  renderPage(messages, firstSeq) {
    const waiting = this.waitingMarker;
    // The marker goes before the message at seq summarizedMessages + 1, i.e. before index `at`.
    const at = waiting ? waiting.summarizedMessages + 1 - firstSeq : -1;
    for (const [i, message] of messages.entries()) {
      if (waiting && i === at) this.placeMarker(waiting.element);
      this.renderMessage(message);
    }
    if (waiting && this.waitingMarker === waiting && at >= messages.length) this.placeMarker(waiting.element);
  }

  /** @param {HTMLElement} element */
  placeMarker(element) {
    this.list.append(element);
    this.waitingMarker = undefined;
  }

  /**
   * Older history (a page loaded on scroll) above what is shown, keeping the reader's place: rendered
   * into a detached list by the same code as live messages, then moved to the top.
   * @param {AgentMessage[]} messages
   * @param {number} firstSeq the first message's position in history (1 for the first)
   */
  prependHistory(messages, firstSeq) {
    const list = this.list;
    const scroller = list.parentElement;
    const older = /** @type {HTMLElement} */ (list.cloneNode(false));
    const { streaming, following } = this;
    this.list = older;
    this.streaming = undefined;
    this.following = false;
    try {
      this.renderPage(messages, firstSeq);
    } finally {
      this.list = list;
      this.streaming = streaming;
      this.following = following;
    }
    const heightBefore = scroller?.scrollHeight ?? 0;
    list.prepend(...older.childNodes);
    if (this.waitingMarker) list.prepend(this.waitingMarker.element);
    if (scroller) scroller.scrollTop += scroller.scrollHeight - heightBefore;
  }

  /** After restoring a running session: calls without a result are still in progress, not queued. */
  markUnfinishedRunning() {
    for (const card of this.cards.values()) if (!card.finished) card.start(undefined);
  }

  /**
   * A user message this page just sent: shown at once, confirmed when the session takes it into history.
   * @param {string} text
   */
  addPendingUser(text) {
    this.following = true;
    const bubble = this.bubble("user", text);
    bubble.classList.add("is-pending");
    bubble.append(el("span", { class: "bubble-meta", text: "queued" }));
    this.pendingUsers.push({ text, bubble });
    return bubble;
  }

  /** @param {HTMLElement} bubble */
  removePendingUser(bubble) {
    this.pendingUsers = this.pendingUsers.filter((p) => p.bubble !== bubble);
    bubble.remove();
  }

  /**
   * A message appended to the session's history (messageEnd, or a snapshot entry).
   * @param {AgentMessage} message
   */
  renderMessage(message) {
    if (message.role === "user") return this.renderUser(message);
    if (message.role === "assistant") return this.renderAssistant(message);
    if (message.role === "toolResult") {
      const card = this.card(message.toolCallId, message.toolName);
      card.finish({ content: message.content, isError: message.isError, endedAt: undefined });
    }
  }

  startAssistant() {
    this.finishStreaming();
    const bubble = this.bubble("assistant", "");
    bubble.classList.add("is-streaming");
    bubble.setAttribute("aria-busy", "true");
    this.streaming = bubble;
  }

  /** @param {string} text */
  appendDelta(text) {
    if (!this.streaming) this.startAssistant();
    this.streaming?.querySelector(".bubble-text")?.append(text);
    this.scrollToEnd();
  }

  /** @param {EventOf<"toolExecStart">} event */
  toolStart(event) {
    const card = this.card(event.toolCallId, event.toolName, event.arguments, event.parentToolCallId);
    card.start(event.ts);
  }

  /** @param {EventOf<"toolExecUpdate">} event */
  toolUpdate(event) {
    this.card(event.toolCallId, event.toolName, event.arguments).addPartial(event.partialResult, (toolCallId, approve) =>
      this.onDecide(toolCallId, approve),
    );
    this.scrollToEnd();
  }

  /** @param {EventOf<"toolExecEnd">} event */
  toolEnd(event) {
    this.card(event.toolCallId, event.toolName).finish({ content: event.result?.content, isError: event.isError, endedAt: event.ts });
    this.scrollToEnd();
  }

  /** @param {EventOf<"toolApprovalRequired"> | PendingApproval & { arguments?: unknown }} request */
  approvalRequired({ toolCallId, toolName, arguments: args }) {
    const card = this.card(toolCallId, toolName, args);
    card.requestApproval((approve) => this.onDecide(toolCallId, approve));
    this.scrollToEnd();
  }

  /**
   * An MCP server's question, as a form whose answer goes to the elicitations route.
   * @param {{ elicitationId: string; server: string; message: string; requestedSchema: Record<string, unknown> }} elicitation
   */
  elicitation(elicitation) {
    const onAnswer = this.onAnswer;
    if (this.asked.has(elicitation.elicitationId) || !onAnswer) return;
    this.asked.add(elicitation.elicitationId);
    this.list.append(
      el(
        "li",
        { class: "notice notice-info elicitation-item" },
        elicitationForm(elicitation, (action, content) => onAnswer(elicitation.elicitationId, action, content)),
      ),
    );
    this.scrollToEnd();
  }

  /**
   * A run's final answer that is not part of history (a terminating tool batch).
   * @param {AssistantMessage} response
   */
  renderFinal(response) {
    this.renderAssistant(response);
  }

  /**
   * A finished run's waterfall (run-timeline.js), under its answer.
   * @param {HTMLElement} node
   */
  showTimeline(node) {
    this.finishStreaming();
    this.list.append(node);
    this.scrollToEnd();
  }

  /**
   * @param {string} text
   * @param {"info" | "error"} [kind]
   */
  notice(text, kind = "info") {
    this.lastNotice = text;
    this.list.append(el("li", { class: `notice notice-${kind}`, role: kind === "error" ? "alert" : undefined, text }));
    this.scrollToEnd();
  }

  /**
   * Where the model's view was compacted, live (a contextCompacted event): a marker at the end of the
   * conversation.
   * @param {{ summarizedMessages: number; tokensBefore?: number; tokensAfter?: number }} compaction
   */
  compacted(compaction) {
    this.finishStreaming();
    this.list.append(this.compactionMarker(compaction));
    this.scrollToEnd();
  }

  /**
   * A marker that the model now sees a summary in place of the first `summarizedMessages` messages (the
   * conversation keeps them all), which opens to show the summary.
   * @param {{ summarizedMessages: number; tokensBefore?: number; tokensAfter?: number }} compaction
   * @param {ContextSummary} [summary] the summary's text when known (a snapshot), else fetched when opened
   */
  compactionMarker(compaction, summary) {
    const tokens =
      compaction.tokensBefore !== undefined && compaction.tokensAfter !== undefined
        ? ` (about ${compaction.tokensBefore} → ${compaction.tokensAfter} tokens)`
        : "";
    const body = el("p", { class: "compaction-text", text: summary?.text ?? "" });
    const marker = el(
      "details",
      { class: "notice compaction-marker" },
      el("summary", { text: `The model now sees a summary of the first ${compaction.summarizedMessages} messages${tokens}` }),
      body,
    );
    marker.addEventListener("toggle", () => {
      if (!marker.open || body.textContent || !this.onSummary) return;
      body.textContent = "Loading the summary…";
      this.onSummary().then(
        (current) => {
          body.textContent = current?.text ?? "No summary is stored.";
        },
        () => {
          body.textContent = "The summary could not be loaded.";
        },
      );
    });
    return marker;
  }

  /**
   * A remote MCP server needs the user to authorize it: a "Connect" link, opened in a new tab. Only an
   * http(s) URL becomes a link (the URL comes from the server's own metadata).
   * @param {{ server: string, authorizationUrl?: string }} request
   */
  connectRequired({ server, authorizationUrl }) {
    const safe = authorizationUrl && /^https?:$/.test(new URL(authorizationUrl, location.href).protocol) ? authorizationUrl : undefined;
    const link = safe
      ? el("a", { href: safe, target: "_blank", rel: "noopener noreferrer", class: "connect-link", text: "Connect" })
      : null;
    this.list.append(
      el(
        "li",
        { class: "notice notice-info", dataset: { mcpServer: server } },
        `MCP server "${server}" needs your authorization before its tools can be used. `,
        link,
      ),
    );
    this.scrollToEnd();
  }

  // ── internals ───────────────────────────────────────────────────────────
  /** @param {UserMessage} message */
  renderUser(message) {
    const text = textOfContent(message.content);
    const pending = this.pendingUsers[0];
    if (pending && pending.text === text) {
      this.pendingUsers.shift();
      pending.bubble.classList.remove("is-pending");
      pending.bubble.querySelector(".bubble-meta")?.remove();
      // Moved to where history puts it: after what the run showed before taking it in.
      this.list.append(pending.bubble);
      return;
    }
    const bubble = this.bubble("user", text);
    // A schedule sent this one, not the person: marked so the conversation says so.
    if (message.scheduleId) {
      bubble.classList.add("bubble-scheduled");
      bubble.dataset.scheduleId = message.scheduleId;
      bubble.querySelector(".visually-hidden")?.replaceChildren("Scheduled message:");
      bubble.prepend(el("span", { class: "bubble-meta", text: "⏰ scheduled" }));
    }
  }

  /** @param {AssistantMessage} message */
  renderAssistant(message) {
    const text = textOfContent(message.content);
    // A live `error` event was already shown as a notice; its message-shaped copy adds nothing.
    const shownAsNotice = !text && message.errorMessage !== undefined && message.errorMessage === this.lastNotice;
    const wanted = (text || message.errorMessage) && !shownAsNotice;
    const bubble = this.streaming ?? (wanted ? this.bubble("assistant", "") : undefined);
    this.streaming = undefined;
    if (bubble) {
      bubble.classList.remove("is-streaming");
      bubble.removeAttribute("aria-busy");
      const textNode = bubble.querySelector(".bubble-text");
      if (textNode) textNode.textContent = text;
      if (message.errorMessage && !shownAsNotice) {
        bubble.classList.add("has-error");
        bubble.append(el("p", { class: "bubble-error", text: describeStop(message) }));
      }
      if (!wanted) bubble.remove();
    }
    for (const block of message.content ?? []) {
      if (block?.type === "toolCall") this.card(block.id, block.name, block.arguments);
    }
    this.scrollToEnd();
  }

  /** Removes the answer being streamed: the server abandoned it and will send a new one. */
  dropStreaming() {
    this.streaming?.remove();
    this.streaming = undefined;
  }

  finishStreaming() {
    if (!this.streaming) return;
    const bubble = this.streaming;
    this.streaming = undefined;
    bubble.classList.remove("is-streaming");
    bubble.removeAttribute("aria-busy");
    if (!bubble.querySelector(".bubble-text")?.textContent) bubble.remove();
  }

  /**
   * @param {string} toolCallId
   * @param {string} [toolName]
   * @param {unknown} [args]
   * @param {string} [parentToolCallId] the runCode call whose program made this call
   */
  card(toolCallId, toolName, args, parentToolCallId) {
    let card = this.cards.get(toolCallId);
    if (!card) {
      this.finishStreaming();
      card = new ToolCard(toolCallId, toolName ?? "tool", args);
      this.cards.set(toolCallId, card);
      // A program's call (code mode) sits inside its runCode card; its id is `<runCode id>.<n>`.
      const parent = this.cards.get(parentToolCallId ?? toolCallId.slice(0, Math.max(0, toolCallId.lastIndexOf("."))));
      if (parent?.nested) parent.addNested(card);
      else this.list.append(card.element);
      this.scrollToEnd();
    }
    return card;
  }

  /**
   * @param {"user" | "assistant"} role
   * @param {string} text
   */
  bubble(role, text) {
    const bubble = el(
      "li",
      { class: `bubble bubble-${role}`, dataset: { role } },
      el("span", { class: "visually-hidden", text: role === "user" ? "You said:" : "Assistant:" }),
      el("div", { class: "bubble-text", text }),
    );
    this.list.append(bubble);
    this.scrollToEnd();
    return bubble;
  }

  scrollToEnd() {
    const scroller = this.list.parentElement;
    if (scroller && this.following) scroller.scrollTop = scroller.scrollHeight;
  }
}

/** @param {AssistantMessage} message */
function describeStop(message) {
  if (message.stopReason === "aborted") return "Stopped: the run was aborted.";
  return message.errorMessage;
}
