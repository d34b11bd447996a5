/**
 * Coalesces a model's text deltas before they reach the event log: a fast stream of tiny chunks
 * becomes a few messageDelta events (one per short window or size step), so storage rows and SSE writes
 * per answer stay small while text still streams live. Any other event flushes pending text first,
 * which keeps the log's order exactly the order the loop emitted.
 */
import type { AgentEvent } from "../../core/index.ts";

/** Long enough to merge a token burst, short enough to read as live typing. */
export const DELTA_FLUSH_MS = 25;
export const DELTA_FLUSH_CHARS = 2_048;

export class DeltaCoalescer {
  private pending = "";
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly sink: (event: AgentEvent) => void) {}

  emit(event: AgentEvent): void {
    if (event.type === "messageDelta") {
      this.pending += event.text;
      if (this.pending.length >= DELTA_FLUSH_CHARS) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), DELTA_FLUSH_MS);
      return;
    }
    this.flush();
    this.sink(event);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pending) return;
    const text = this.pending;
    this.pending = "";
    this.sink({ type: "messageDelta", text });
  }
}
