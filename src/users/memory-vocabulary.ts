/**
 * What a user's memory adds to the core's vocabulary, merged into its declarations from here: the
 * "memory" tool capability and its context field (the remember, recall and forget tools). Types only,
 * importing only the core, so every program that reads those unions can load it (src/host-vocabulary.ts).
 */
declare module "../core/types.ts" {
  interface ToolCapabilities {
    memory: "memory";
  }
  interface ToolExecutionContext {
    /** Capability "memory": the memory of the user the calling session belongs to; absent in a session of no user. */
    memory?: MemoryAccess;
  }
}

export type Memory = { id: string; text: string; createdAt: number; sessionId: string | null };
export type Remembered = { ok: true; memoryId: string } | { ok: false; message: string };

/**
 * What capability "memory" gives a tool: the session's user's memory, bounded as the routes are. The
 * user is the session's, fixed at its creation: no argument of a tool call can name another.
 */
export type MemoryAccess = {
  remember: (text: string) => Promise<Remembered>;
  recall: (query: string, limit: number) => Promise<Memory[]>;
  forget: (memoryId: string) => Promise<boolean>;
};
