/**
 * A session's entry in its user's list (GET /v1/sessions), kept by the session itself: added at
 * creation, touched on new input (its title from the first user message) and when a run ends, dropped
 * when the session ends, and kept past its idleness while a schedule due later keeps the session alive.
 * Listing then reads one object, the user's, and wakes no session. Sessions of no
 * user and sub-agents' children have no entry. A failed entry fails the session's creation; a later failed
 * update is logged and never fails the session's own work: the listing hides rows idle past the session
 * lifetime (src/users/user-store.ts).
 * Called by AgentSession and the session loader.
 */
import type { UserContent } from "../core/index.ts";
import type { AppEnv } from "../env.ts";
import type { SessionSettings } from "../session/storage/session-meta.ts";
import type { MemoryAccess } from "./memory-vocabulary.ts";
import { titleOf, userStore } from "./user-store.ts";

export type SessionIndex = {
  /** Throws when the write fails: the session is not created then (AgentSession.init). */
  created: () => Promise<void>;
  touched: (status: string, content?: readonly UserContent[]) => Promise<void>;
  dropped: () => Promise<void>;
  /** The session lives at least until `at` (a schedule): its entry must not be taken for an expired one's. */
  keptUntil: (at: number) => Promise<void>;
};

/** The entry of `settings`' session in its user's list, or undefined when it is not listed. */
export function sessionIndex(env: AppEnv, settings: SessionSettings): SessionIndex | undefined {
  const userId = settings.userId;
  if (userId === undefined || settings.subAgent) return undefined;
  const store = () => userStore(env, userId);
  const logged = async (what: string, work: () => Promise<unknown>) => {
    try {
      await work();
    } catch (err) {
      console.error(JSON.stringify({ event: "sessionIndexFailed", what, sessionId: settings.id, message: String(err) }));
    }
  };
  // The latest time the store was told to keep the entry until. The store keeps the later of two, so
  // telling it a time no later again (the alarm after every turn would) changes nothing; a restart, which
  // empties this, only tells it once more.
  let keptAtLeast = 0;
  return {
    created: async () => void (await store().indexSession(settings.id, settings.createdAt)),
    touched: (status, content) => {
      const text = content?.find((block) => block.type === "text");
      const title = text && "text" in text ? titleOf(text.text) : null;
      return logged("touched", () => store().touchSession(settings.id, status, title));
    },
    dropped: () => logged("dropped", () => store().dropSession(settings.id)),
    keptUntil: async (at) => {
      if (at <= keptAtLeast) return;
      await logged("keptUntil", async () => {
        await store().keepSession(settings.id, at);
        keptAtLeast = at;
      });
    },
  };
}

/** The memory capability of a session of `settings.userId` (the tools' only way to that user's store). */
export function memoryAccess(env: AppEnv, settings: SessionSettings): MemoryAccess | undefined {
  const userId = settings.userId;
  if (userId === undefined) return undefined;
  const store = () => userStore(env, userId);
  // A sub-agent's child remembers on its root session's behalf: the parent is named as the source.
  const sessionId = settings.subAgent?.parentId ?? settings.id;
  return {
    remember: (text) => store().remember(text, sessionId),
    recall: (query, limit) => store().recall(query, limit),
    forget: (memoryId) => store().forget(memoryId),
  };
}
