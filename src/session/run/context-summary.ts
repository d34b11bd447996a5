/**
 * The session's current summary (compaction, docs/compaction.md), kept in meta as `contextSummary`: the
 * text requests carry in place of the oldest messages and how many history messages it stands for. Read
 * when a run first needs history and by the snapshot; written by the run (run.ts) when a compaction is
 * stored. Invariant: a summary, its contextCompacted event and its call's usage commit together, so a
 * restart finds all three or none (a summary call the restart cut short is made again, once).
 */
import type { ContextSummary, Usage } from "../../core/index.ts";
import type { SessionMeta } from "../storage/session-meta.ts";
import type { RunRecord } from "./run-record.ts";
import type { StepWrites } from "./step-writes.ts";

const SUMMARY_KEY = "contextSummary";

export function readContextSummary(meta: SessionMeta): ContextSummary | null {
  return meta.read<ContextSummary>(SUMMARY_KEY) ?? null;
}

/** Stores a new summary with the step's pending writes (its event among them) and its call's usage, in one commit. */
export function storeContextSummary(
  parts: { ctx: DurableObjectState; meta: SessionMeta; record: RunRecord; writes: StepWrites },
  summary: ContextSummary,
  usage: Usage | undefined,
): void {
  parts.ctx.storage.transactionSync(() => {
    parts.meta.write(SUMMARY_KEY, summary);
    parts.record.addStoredUsage(usage);
    parts.writes.flush();
  });
}
