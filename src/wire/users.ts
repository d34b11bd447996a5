/**
 * What the user routes answer (docs/api.md "Users"): a page of the signed-in user's sessions and their
 * memories. The server (src/users/user-store.ts) and the client SDK both use these types.
 */
import type { Memory } from "../users/memory-vocabulary.ts";

export type { Memory } from "../users/memory-vocabulary.ts";

/** One session in its user's list; `title` is its first user message's first 80 characters. */
export type SessionListing = { id: string; createdAt: number; lastActiveAt: number; title: string | null; status: string };

/** GET /v1/sessions: most recently active first; `next` (pass as `before`) when there are more. */
export type SessionPage = { sessions: SessionListing[]; next?: string };

/** GET /v1/memories. */
export type MemoryList = { memories: Memory[] };
