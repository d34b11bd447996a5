/**
 * A session's side of its user's daily token budget (USER_DAILY_TOKEN_BUDGET): before each model call the
 * session reports the tokens its own model calls have used so far and learns the user's count today
 * from the user's UserStore (src/users/user-store.ts), so concurrent sessions of one user overshoot by at
 * most the call each had in flight. A sub-agent's child reports its own calls (it belongs to the same
 * user), its parent only its own, so nothing counts twice. The last count learnt is kept as a cache for
 * what cannot wait on a call (a schedule about to fire); every model call asks again.
 */
import type { BudgetState } from "../core/index.ts";
import type { AppEnv } from "../env.ts";
import { readSetting } from "../config.ts";
import type { SessionSettings } from "../session/storage/session-meta.ts";
import type { UserBudget } from "../session/run/token-budget.ts";
import { userStore, utcDay } from "./user-store.ts";

/** The daily budget of `settings`' user, or undefined for a session of no user or with no limit set. */
export function userBudget(env: AppEnv, settings: SessionSettings): UserBudget | undefined {
  const limit = readSetting(env, "USER_DAILY_TOKEN_BUDGET");
  const userId = settings.userId;
  if (limit === undefined || userId === undefined) return undefined;
  let last: { day: string; state: BudgetState } | undefined;
  return {
    async report(ownTokens) {
      let used: number;
      try {
        ({ used } = await userStore(env, userId).reportTokens(settings.id, ownTokens));
      } catch (err) {
        throw new Error(`The user's daily token budget could not be read: ${err instanceof Error ? err.message : String(err)}`);
      }
      const state: BudgetState = { scope: "user", limit, used };
      last = { day: utcDay(Date.now()), state };
      return state;
    },
    lastKnown: () => (last && last.day === utcDay(Date.now()) ? last.state : undefined),
  };
}
