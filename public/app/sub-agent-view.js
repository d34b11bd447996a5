// @ts-check
/**
 * A sub-agent call's child session inside its tool card: the child's tool calls (nested cards, which may
 * hold sub-agents of their own) and its text, built from the child events the parent's stream relays as
 * the call's partial results (`{subAgent: {sessionId, event}}`). Created by ToolCard on the first such
 * update. A child's approval is answered through the parent session (`decide`). Unknown events are ignored.
 */
import { el, textOfContent } from "./dom.js";

/**
 * @typedef {{ start(ts?: number): void; addPartial(partial: unknown, decide: Decide): void; requestApproval(decide: (approve: boolean) => Promise<unknown>): void; finish(outcome: { content: unknown; isError: boolean | undefined; endedAt: number | undefined }): void; element: HTMLElement }} Card
 * @typedef {(toolCallId: string, approve: boolean) => Promise<unknown>} Decide
 * @typedef {(toolCallId: string, toolName: string, args?: unknown) => Card} CardFactory
 * @typedef {{ type: string; ts?: number; toolCallId?: string; toolName?: string; arguments?: unknown; partialResult?: unknown; result?: { content?: unknown }; isError?: boolean; text?: string; message?: { role?: string; content?: unknown } }} ChildEvent
 */

/** The relayed child event in a partial result, if it is one. */
/** @param {unknown} partial @returns {{ sessionId: string; event: ChildEvent } | undefined} */
export function subAgentUpdate(partial) {
  const sub = partial && typeof partial === "object" ? /** @type {{ subAgent?: unknown }} */ (partial).subAgent : undefined;
  if (!sub || typeof sub !== "object") return undefined;
  const { sessionId, event } = /** @type {{ sessionId?: unknown; event?: unknown }} */ (sub);
  return typeof sessionId === "string" && event && typeof event === "object"
    ? { sessionId, event: /** @type {ChildEvent} */ (event) }
    : undefined;
}

export class SubAgentView {
  /**
   * @param {string} sessionId
   * @param {CardFactory} newCard
   */
  constructor(sessionId, newCard) {
    this.newCard = newCard;
    /** @type {Map<string, Card>} */
    this.cards = new Map();
    /** @type {HTMLElement | undefined} the child's answer being streamed */
    this.streaming = undefined;
    this.list = el("ol", { class: "sub-agent-steps", "aria-label": "Sub-agent steps" });
    this.element = el(
      "section",
      { class: "sub-agent", dataset: { sessionId }, "aria-label": "Sub-agent" },
      el("p", { class: "sub-agent-head", text: `Sub-agent session ${sessionId}` }),
      this.list,
    );
  }

  /**
   * @param {ChildEvent} event
   * @param {Decide} decide answers a child's approval through the parent session
   */
  handle(event, decide) {
    const id = event.toolCallId ?? "";
    switch (event.type) {
      case "messageDelta":
        this.text().append(event.text ?? "");
        return;
      case "messageAbandoned":
        this.streaming?.remove();
        this.streaming = undefined;
        return;
      case "messageEnd": {
        if (event.message?.role !== "assistant") return;
        const text = textOfContent(event.message.content);
        if (text) this.text().textContent = text;
        this.streaming = undefined;
        return;
      }
      case "toolExecStart":
        this.card(id, event.toolName, event.arguments).start(event.ts);
        return;
      case "toolExecUpdate":
        this.card(id, event.toolName, event.arguments).addPartial(event.partialResult, decide);
        return;
      case "toolExecEnd":
        this.card(id, event.toolName).finish({ content: event.result?.content, isError: event.isError, endedAt: event.ts });
        return;
      case "toolApprovalRequired":
        this.card(id, event.toolName, event.arguments).requestApproval((approve) => decide(id, approve));
        return;
      default:
        return; // runStart, runEnd, retries and notices: the card's own state says enough
    }
  }

  /** The paragraph the child's current answer streams into. */
  text() {
    if (!this.streaming) {
      this.streaming = el("p", { class: "sub-agent-text" });
      this.list.append(el("li", {}, this.streaming));
    }
    return this.streaming;
  }

  /** @param {string} toolCallId @param {string} [toolName] @param {unknown} [args] */
  card(toolCallId, toolName, args) {
    let card = this.cards.get(toolCallId);
    if (!card) {
      this.streaming = undefined;
      card = this.newCard(toolCallId, toolName ?? "tool", args);
      this.cards.set(toolCallId, card);
      this.list.append(card.element);
    }
    return card;
  }
}
