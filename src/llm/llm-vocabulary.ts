/**
 * What the model selection adds to the core's vocabulary, merged into its declarations from here: the
 * `modelFallback` event (src/llm/model-fallback.ts). Types only, importing only the core, so every
 * program that reads those unions can load it (src/host-vocabulary.ts).
 */
declare module "../core/events.ts" {
  interface HostEvents {
    /** The session's model (or the previous fallback) failed after its retries; this step goes on with `to`. */
    modelFallback: { from: string; to: string; reason: string };
  }
}

export {};
