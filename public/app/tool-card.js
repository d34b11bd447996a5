// @ts-check
/**
 * One tool call as a live card in the conversation: name, arguments, partial results as they arrive,
 * the approval question when the session asks for one, then the result or error with its duration. A
 * sub-agent call's card holds its child session's steps (sub-agent-view.js) instead of raw partial results.
 * A runCode card (code mode) shows the program, holds the cards of its nested calls, and reads its result
 * as what the program returned and logged.
 * Created by ChatView (from toolExecStart, or from the assistant message when restoring history).
 * Invariants: `data-state` always names the card's state; once finished, later updates are ignored.
 */
import { el, formatDuration, formatJson, textOfContent } from "./dom.js";
import { SubAgentView, subAgentUpdate } from "./sub-agent-view.js";

/** @typedef {"pending" | "running" | "approval" | "done" | "error"} CardState */

/** The code-mode tool, whose card shows a program and the calls it makes. */
export const RUN_CODE = "runCode";

/** @type {Record<CardState, string>} */
const STATE_LABELS = {
  pending: "Queued",
  running: "Running…",
  approval: "Waiting for approval",
  done: "Done",
  error: "Failed",
};

export class ToolCard {
  /**
   * @param {string} toolCallId
   * @param {string} toolName
   * @param {unknown} [args]
   */
  constructor(toolCallId, toolName, args) {
    this.toolCallId = toolCallId;
    this.toolName = toolName;
    /** @type {number | undefined} */
    this.startedAt = undefined;
    /** @type {CardState} */
    this.state = "pending";
    this.finished = false;
    this.approvalOpen = false;
    /** @type {SubAgentView | undefined} the child session's steps, for a sub-agent call */
    this.subAgent = undefined;
    this.stateLabel = el("span", { class: "tool-state" });
    this.durationLabel = el("span", { class: "tool-duration" });
    this.argsView = el("pre", { class: "tool-args-json" });
    this.partials = el("ol", { class: "tool-partials", "aria-label": "Partial results" });
    this.approval = el("div", { class: "tool-approval", hidden: true });
    this.result = el("div", { class: "tool-result", hidden: true });
    /** @type {HTMLOListElement | undefined} the cards of a program's nested calls */
    this.nested = toolName === RUN_CODE ? el("ol", { class: "tool-nested", "aria-label": "Tool calls of the program" }) : undefined;
    this.element = el(
      "li",
      { class: "tool-card", dataset: { toolCallId, toolName }, "aria-label": `Tool call ${toolName}` },
      el(
        "div",
        { class: "tool-head" },
        el("span", { class: "tool-icon", "aria-hidden": "true", text: "⚙" }),
        el("span", { class: "tool-name", text: toolName }),
        this.stateLabel,
        this.durationLabel,
      ),
      el("details", { class: "tool-args" }, el("summary", { text: "Arguments" }), this.argsView),
      ...(this.nested ? [this.nested] : []),
      this.partials,
      this.approval,
      this.result,
    );
    if (this.nested) this.element.classList.add("is-code");
    this.setArguments(args);
    this.setState("pending");
  }

  /** @param {ToolCard} card a call the program of this runCode card made */
  addNested(card) {
    this.nested?.append(card.element);
  }

  /** @param {unknown} args */
  setArguments(args) {
    if (args === undefined) return;
    const code = this.nested ? programCode(args) : undefined;
    if (typeof code === "string") {
      // The program itself, open: it is what the model did.
      this.argsView.textContent = code;
      this.argsView.classList.add("tool-code");
      const details = this.element.querySelector(".tool-args");
      if (details instanceof HTMLDetailsElement) details.open = true;
      const summary = this.element.querySelector(".tool-args summary");
      if (summary) summary.textContent = `Program (${code.split("\n").length} lines)`;
      return;
    }
    const text = formatJson(args);
    this.argsView.textContent = text;
    const summary = this.element.querySelector(".tool-args summary");
    if (summary) summary.textContent = `Arguments ${summarize(text)}`;
  }

  /** @param {number | undefined} ts when the server started the call (undefined when restoring history) */
  start(ts) {
    if (this.finished) return;
    // A second start for the same call: the server restarted mid-call and ran it again (idempotent tools).
    if (this.startedAt !== undefined && ts !== undefined && ts !== this.startedAt) {
      this.partials.append(el("li", { class: "tool-partial tool-restart", text: "started again after a server restart" }));
    }
    this.startedAt ??= ts;
    if (this.state !== "approval") this.setState("running");
  }

  /**
   * @param {unknown} partialResult
   * @param {(toolCallId: string, approve: boolean) => Promise<unknown>} [decide] answers a sub-agent's approvals
   */
  addPartial(partialResult, decide) {
    if (this.finished) return;
    this.settleApproval();
    if (this.state !== "running") this.setState("running");
    const sub = subAgentUpdate(partialResult);
    if (!sub) {
      this.partials.append(el("li", { class: "tool-partial", text: compactJson(partialResult) }));
      return;
    }
    if (!this.subAgent) {
      this.subAgent = new SubAgentView(sub.sessionId, (id, name, args) => new ToolCard(id, name, args));
      this.element.classList.add("is-sub-agent");
      this.partials.before(this.subAgent.element);
    }
    this.subAgent.handle(sub.event, decide ?? (() => Promise.reject(new Error("Approvals are answered in the parent session"))));
  }

  /**
   * Shows Approve/Reject; `decide(approve)` returns a promise that settles when the server answered.
   * @param {(approve: boolean) => Promise<unknown>} decide
   */
  requestApproval(decide) {
    if (this.finished) return;
    this.setState("approval");
    const status = el("span", { class: "approval-status", role: "status" });
    const approve = el("button", { type: "button", class: "approve", text: "Approve" });
    const reject = el("button", { type: "button", class: "reject", text: "Reject" });
    const answer = async (/** @type {boolean} */ yes) => {
      approve.disabled = true;
      reject.disabled = true;
      status.textContent = yes ? "Approving…" : "Rejecting…";
      try {
        await decide(yes);
        this.settleApproval(yes ? "Approved" : "Rejected");
        if (yes && !this.finished) this.setState("running");
      } catch (err) {
        approve.disabled = false;
        reject.disabled = false;
        status.textContent = `Could not send: ${err instanceof Error ? err.message : String(err)}`;
      }
    };
    approve.addEventListener("click", () => answer(true));
    reject.addEventListener("click", () => answer(false));
    this.approval.replaceChildren(
      el("p", { text: `${this.toolName} wants to run. Allow it?` }),
      el("div", { class: "approval-buttons", role: "group", "aria-label": `Approve or reject ${this.toolName}` }, approve, reject),
      status,
    );
    this.approval.hidden = false;
    this.approvalOpen = true;
  }

  /**
   * The approval question is over. With `text` (answered on this page) the outcome stays on the card;
   * without (answered elsewhere, or the call moved on) an open question just disappears.
   * @param {string} [text]
   */
  settleApproval(text) {
    if (text) {
      this.approvalOpen = false;
      this.approval.replaceChildren(el("p", { class: "approval-outcome", text }));
      this.approval.hidden = false;
    } else if (this.approvalOpen) {
      this.approvalOpen = false;
      this.approval.hidden = true;
      this.approval.replaceChildren();
    }
  }

  /** @param {{ content: unknown; isError: boolean | undefined; endedAt: number | undefined }} outcome */
  finish({ content, isError, endedAt }) {
    if (this.finished) return;
    this.finished = true;
    this.settleApproval();
    this.setState(isError ? "error" : "done");
    if (this.startedAt !== undefined && endedAt !== undefined) this.durationLabel.textContent = formatDuration(endedAt - this.startedAt);
    const text = textOfContent(content) || "(no output)";
    const program = this.nested && !isError ? programResult(text) : undefined;
    if (program) {
      this.result.replaceChildren(
        el("p", { class: "tool-result-label", text: "Returned" }),
        el("pre", { class: "program-returned", text: formatJson(program.returned) }),
        ...(program.logs.length > 0
          ? [el("p", { class: "tool-result-label", text: "Logs" }), el("pre", { class: "program-logs", text: program.logs.join("\n") })]
          : []),
      );
      this.result.hidden = false;
      return;
    }
    this.result.replaceChildren(el("span", { class: "visually-hidden", text: isError ? "Error: " : "Result: " }), el("pre", { text }));
    this.result.classList.toggle("is-error", Boolean(isError));
    this.result.hidden = false;
  }

  /** @param {CardState} state */
  setState(state) {
    this.state = state;
    this.element.dataset.state = state;
    this.stateLabel.textContent = STATE_LABELS[state] ?? state;
  }
}

/**
 * The program of runCode's arguments (an object, or the model's JSON text of one), if any.
 * @param {unknown} args
 * @returns {unknown}
 */
function programCode(args) {
  let value = args;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  return value && typeof value === "object" && "code" in value ? value.code : undefined;
}

/**
 * A runCode result's `{returned, logs}`, or undefined when the text is not one.
 * @param {string} text
 * @returns {{ returned: unknown; logs: string[] } | undefined}
 */
function programResult(text) {
  try {
    const parsed = JSON.parse(text);
    if (!parsed || typeof parsed !== "object" || !("returned" in parsed) || !Array.isArray(parsed.logs)) return undefined;
    return { returned: parsed.returned, logs: parsed.logs.map(String) };
  } catch {
    return undefined;
  }
}

/** Partial results are progress notes: one line each reads better than indented JSON. */
/** @param {unknown} value */
function compactJson(value) {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A one-line preview for the collapsed arguments. */
/** @param {string} json */
function summarize(json) {
  const flat = json.replace(/\s+/g, " ").trim();
  return flat.length > 60 ? `${flat.slice(0, 59)}…` : flat;
}
