// @ts-check
/**
 * A run's timeline as a compact waterfall under its answer: one bar per LLM call (retries counted), tool
 * call, approval wait and sub-agent call, placed by the events' own timestamps. Fed every live event by
 * main.js; at the run's end `observe` returns the element to show. Keeps only the run in progress and at
 * most MAX_ROWS rows (a long run's later rows are counted, not drawn). Pure DOM through el(): no markup.
 */
import { el, formatDuration } from "./dom.js";

/** @import { StampedEvent } from "../client.js" */

/** Rows drawn per run; a run with more shows how many it left out. */
const MAX_ROWS = 40;

/** @typedef {{ kind: "llm" | "tool" | "approval" | "subagent"; label: string; start: number; end?: number; failed?: boolean; note?: string }} Row */

export class RunTimeline {
  constructor() {
    /** @type {number | undefined} */
    this.startedAt = undefined;
    /** @type {Row[]} */
    this.rows = [];
    /** @type {Row | undefined} */
    this.llm = undefined;
    /** @type {Map<string, Row>} */
    this.tools = new Map();
    /** @type {Map<string, Row>} */
    this.approvals = new Map();
    this.omitted = 0;
  }

  /**
   * Folds one event in; returns the waterfall when the event ends the run.
   * @param {StampedEvent} event
   * @returns {HTMLElement | undefined}
   */
  observe(event) {
    const ts = event.ts;
    if (event.type === "runStart") this.reset(ts);
    this.startedAt ??= ts;
    switch (event.type) {
      case "messageStart":
        this.closeLlm(ts, false);
        this.llm = this.add({ kind: "llm", label: "LLM call", start: ts });
        break;
      case "llmRetry": {
        const llm = (this.llm ??= this.add({ kind: "llm", label: "LLM call", start: ts }));
        llm.note = `${event.retry} ${event.retry === 1 ? "retry" : "retries"}`;
        break;
      }
      case "messageEnd":
        if (event.message.role === "assistant") this.closeLlm(ts, event.message.errorMessage !== undefined);
        break;
      case "messageAbandoned":
        this.closeLlm(ts, true);
        break;
      case "toolExecStart":
        if (!this.tools.has(event.toolCallId))
          this.tools.set(event.toolCallId, this.add({ kind: "tool", label: event.toolName, start: ts }));
        break;
      case "toolApprovalRequired":
        this.approvals.set(event.toolCallId, this.add({ kind: "approval", label: `approval: ${event.toolName}`, start: ts }));
        break;
      case "toolExecUpdate": {
        this.closeApproval(event.toolCallId, ts);
        const row = this.tools.get(event.toolCallId);
        const partial = /** @type {{ subAgent?: unknown } | null | undefined} */ (event.partialResult);
        if (row && partial && typeof partial === "object" && partial.subAgent) {
          row.kind = "subagent";
          row.note = "sub-agent";
        }
        break;
      }
      case "toolExecEnd": {
        this.closeApproval(event.toolCallId, ts);
        const row = this.tools.get(event.toolCallId);
        if (row) {
          row.end = ts;
          row.failed = event.isError;
          this.tools.delete(event.toolCallId);
        }
        break;
      }
      case "runEnd": {
        this.closeLlm(ts, false);
        for (const id of [...this.approvals.keys()]) this.closeApproval(id, ts);
        for (const row of this.tools.values()) row.end = ts;
        const view = this.render(ts);
        this.reset(undefined);
        return view;
      }
      default:
        break;
    }
    return undefined;
  }

  /** @param {number | undefined} startedAt */
  reset(startedAt) {
    this.startedAt = startedAt;
    this.rows = [];
    this.llm = undefined;
    this.tools.clear();
    this.approvals.clear();
    this.omitted = 0;
  }

  // ── internals ───────────────────────────────────────────────────────────
  /** @param {Row} row */
  add(row) {
    if (this.rows.length < MAX_ROWS) this.rows.push(row);
    else this.omitted++;
    return row;
  }

  /**
   * @param {number} ts
   * @param {boolean} failed
   */
  closeLlm(ts, failed) {
    if (!this.llm) return;
    this.llm.end = ts;
    this.llm.failed = failed;
    this.llm = undefined;
  }

  /**
   * @param {string} toolCallId
   * @param {number} ts
   */
  closeApproval(toolCallId, ts) {
    const row = this.approvals.get(toolCallId);
    if (!row) return;
    row.end = ts;
    this.approvals.delete(toolCallId);
  }

  /** @param {number} endedAt */
  render(endedAt) {
    const start = this.startedAt ?? endedAt;
    const total = Math.max(1, endedAt - start);
    const count = (/** @type {Row["kind"]} */ kind) => this.rows.filter((r) => r.kind === kind).length;
    const parts = [
      `${count("llm")} LLM`,
      `${count("tool") + count("subagent")} tool`,
      count("approval") ? `${count("approval")} approval` : "",
    ].filter(Boolean);
    const rows = this.rows.map((row) => {
      const end = row.end ?? endedAt;
      const left = ((row.start - start) / total) * 100;
      const width = Math.max(0.5, ((end - row.start) / total) * 100);
      return el(
        "li",
        { class: `timeline-row timeline-${row.kind}${row.failed ? " is-failed" : ""}`, dataset: { kind: row.kind } },
        el("span", { class: "timeline-label", text: row.note ? `${row.label} (${row.note})` : row.label }),
        // The spaces lay out as nothing in the row's grid, but keep the row's text "LLM call 75 ms" where it is read without
        // the layout (copied, or by a screen reader), never "LLM call75 ms".
        " ",
        el(
          "span",
          { class: "timeline-track" },
          el("span", { class: "timeline-bar", style: `left:${left.toFixed(2)}%;width:${Math.min(width, 100 - left).toFixed(2)}%` }),
        ),
        " ",
        el("span", { class: "timeline-ms", text: formatDuration(end - row.start) }),
      );
    });
    return el(
      "li",
      { class: "timeline" },
      el(
        "details",
        { open: true },
        el("summary", { text: `Timeline · ${formatDuration(endedAt - start)} · ${parts.join(", ")}` }),
        el("ol", { class: "timeline-rows" }, rows),
        this.omitted > 0 ? el("p", { class: "timeline-more", text: `${this.omitted} more not drawn` }) : null,
      ),
    );
  }
}
