/**
 * Token budgets (README "Budgets"): SESSION_TOKEN_BUDGET caps what one session's model calls may use,
 * input plus output tokens as the model reported them, its sub-agents' runs included (their usage comes
 * back on the tool result, record.addUsage). Checked before every model call (the loop's checkBudget):
 * a spent budget ends the run with `budget_exceeded`, else what is left caps the call's `max_tokens`.
 * New input to a spent session is refused (429). The operator may raise one session's budget (PUT
 * /v1/sessions/:id/token-budget `{tokenBudget}` with the API token), kept in the session's meta row
 * `tokenBudget`. USER_DAILY_TOKEN_BUDGET, a user's sessions' tokens per UTC day, is a UserBudget
 * (src/users/user-budget.ts); with both, the one with less left decides.
 */
import type { BudgetState, BudgetVerdict, Usage } from "../../core/index.ts";
import { readSetting } from "../../config.ts";
import type { SessionMeta, SessionSettings } from "../storage/session-meta.ts";
import { refuse, type SessionFailure } from "../session-result.ts";
import type { RunRecord } from "./run-record.ts";

/** The meta row holding an operator's budget for this one session (it replaces SESSION_TOKEN_BUDGET). */
export const SESSION_BUDGET_KEY = "tokenBudget";

/** SESSION_TOKEN_BUDGET: a positive whole number of tokens; unset or malformed: no limit. */
export const readSessionTokenBudget = (env: { SESSION_TOKEN_BUDGET?: string | undefined }): number | undefined =>
  readSetting(env, "SESSION_TOKEN_BUDGET");

/** Budget tokens: input plus output, as reported. */
export const tokensUsed = (usage: Usage): number => usage.inputTokens + usage.outputTokens;

/** One user's count for the current UTC day (src/users/user-budget.ts), as a session sees it. */
export interface UserBudget {
  /** Reports the tokens this session's own model calls used so far; answers the user's count today and the limit. */
  report(ownTokens: number): Promise<BudgetState>;
  /** The count the last report learnt, if it was today's (a cache, for what cannot wait on a call). */
  lastKnown(): BudgetState | undefined;
}

/** Seconds until the next UTC day, when a user's daily budget starts again (a 429's Retry-After). */
export function secondsUntilNextUtcDay(now: number = Date.now()): number {
  const next = new Date(now);
  next.setUTCHours(24, 0, 0, 0);
  return Math.max(1, Math.ceil((next.getTime() - now) / 1000));
}

/** New input to a session whose user has spent today's budget: refused until the next UTC day (429, Retry-After). */
export async function refuseSpentUser(parts: { userBudget?: UserBudget; record: RunRecord }): Promise<SessionFailure | undefined> {
  if (!parts.userBudget) return undefined;
  const budget = await parts.userBudget.report(parts.record.ownTokens());
  if (!isSpent(budget)) return undefined;
  const { used, limit } = budget;
  const message = `This user's sessions used ${used} tokens today, their daily budget is ${limit} (USER_DAILY_TOKEN_BUDGET)`;
  return { ...refuse("budget_exceeded", message), retryAfterSeconds: secondsUntilNextUtcDay() };
}

const left = (b: BudgetState): number => b.limit - b.used;

/** Whether nothing is left of `budget`. */
export const isSpent = (budget: BudgetState): boolean => left(budget) <= 0;

/** Of the budgets that apply, the one with less left (the snapshot's `usage.budget`), or null. */
export function tighter(...budgets: (BudgetState | undefined)[]): BudgetState | null {
  let best: BudgetState | null = null;
  for (const b of budgets) if (b && (best === null || left(b) < left(best))) best = b;
  return best;
}

/** Before a model call: the tighter budget spent, or what it leaves for `max_tokens`. */
export function verdictOf(budget: BudgetState | null): BudgetVerdict {
  if (!budget) return { remaining: undefined };
  return isSpent(budget) ? { exceeded: budget } : { remaining: left(budget) };
}

/** What a session's budget is read from. */
export type SessionBudgetParts = {
  env: { SESSION_TOKEN_BUDGET?: string | undefined };
  meta: SessionMeta;
  record: Pick<RunRecord, "sessionUsage">;
  settings: Pick<SessionSettings, "subAgent">;
};

/**
 * The session's budget as it stands, or undefined without one. A sub-agent's child is also held to what
 * its parent had left when it started it (`subAgent.tokenBudget`): the lower limit applies.
 */
export function sessionBudget({ env, meta, record, settings }: SessionBudgetParts): BudgetState | undefined {
  const own = meta.read<number>(SESSION_BUDGET_KEY) ?? readSessionTokenBudget(env);
  const inherited = settings.subAgent?.tokenBudget;
  const limit = own === undefined ? inherited : inherited === undefined ? own : Math.min(own, inherited);
  return limit === undefined ? undefined : { scope: "session", limit, used: tokensUsed(record.sessionUsage()) };
}

/** Tokens left of the session's budget, or undefined without one. */
export function sessionTokensLeft(parts: SessionBudgetParts): number | undefined {
  const budget = sessionBudget(parts);
  return budget && left(budget);
}
