/**
 * Token budgets (README "Budgets"): SESSION_TOKEN_BUDGET caps what one session's model calls may use,
 * input plus output tokens as the model reported them, its sub-agents' runs included (their usage comes
 * back on the tool result, record.addUsage). Checked before every model call (the loop's checkBudget):
 * a spent budget ends the run with `budget_exceeded`, else what is left caps the call's `max_tokens`.
 * New input to a spent session is refused (429). The operator may raise one session's budget (PATCH
 * /v1/sessions/:id `{tokenBudget}` with the API token), kept in the session's meta row `tokenBudget`.
 * The per-user daily budget plugs in as a UserBudget once sessions belong to users.
 */
import type { BudgetState, BudgetVerdict, Usage } from "../../core/index.ts";
import { readSetting } from "../../config.ts";
import type { SessionMeta } from "../storage/session-meta.ts";

/** The meta row holding an operator's budget for this one session (it replaces SESSION_TOKEN_BUDGET). */
export const SESSION_BUDGET_KEY = "tokenBudget";

/** SESSION_TOKEN_BUDGET: a positive whole number of tokens; unset or malformed: no limit. */
export const readSessionTokenBudget = (env: { SESSION_TOKEN_BUDGET?: string | undefined }): number | undefined =>
  readSetting(env, "SESSION_TOKEN_BUDGET");

/** Budget tokens: input plus output, as reported. */
export const tokensUsed = (usage: Usage): number => usage.inputTokens + usage.outputTokens;

/**
 * One user's count for the current UTC day, kept by one object per user (so concurrent sessions overshoot
 * by at most the call each had in flight). Not wired yet: sessions have no user.
 */
export interface UserBudget {
  /** The user's count today, and the limit (USER_DAILY_TOKEN_BUDGET). */
  state(): Promise<BudgetState>;
  /** Adds a call's tokens to today's count. */
  add(tokens: number): Promise<void>;
}

/** Seconds until the next UTC day, when a user's daily budget starts again (a 429's Retry-After). */
export function secondsUntilNextUtcDay(now: number = Date.now()): number {
  const next = new Date(now);
  next.setUTCHours(24, 0, 0, 0);
  return Math.max(1, Math.ceil((next.getTime() - now) / 1000));
}

const left = (b: BudgetState): number => b.limit - b.used;

/** Of the budgets that apply, the one with less left (the snapshot's `usage.budget`), or null. */
export function tighter(...budgets: (BudgetState | undefined)[]): BudgetState | null {
  let best: BudgetState | null = null;
  for (const b of budgets) if (b && (best === null || left(b) < left(best))) best = b;
  return best;
}

/** Before a model call: the tighter budget spent, or what it leaves for `max_tokens`. */
export function verdictOf(budget: BudgetState | null): BudgetVerdict {
  if (!budget) return { remaining: undefined };
  return left(budget) <= 0 ? { exceeded: budget } : { remaining: left(budget) };
}

/** The session's budget as it stands, or undefined without one. */
export function sessionBudget(
  env: { SESSION_TOKEN_BUDGET?: string | undefined },
  meta: SessionMeta,
  usage: Usage,
): BudgetState | undefined {
  const limit = meta.read<number>(SESSION_BUDGET_KEY) ?? readSessionTokenBudget(env);
  return limit === undefined ? undefined : { scope: "session", limit, used: tokensUsed(usage) };
}
