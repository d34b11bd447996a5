/**
 * What the step comparison needs from each runtime it measures: sessions seeded to a size, whose turns
 * run against the bench LLM. Implemented by the drivers beside this file (ours through the client SDK, the
 * Agents SDK over HTTP to its own `wrangler dev`, pi-agent-core in a child Node process) and used by
 * measure-peers.ts. Invariant: a turn that does not complete throws, so a broken peer is never measured as fast.
 */
import { randomUUID } from "node:crypto";

export type StepMode = "streaming" | "non-streaming";

/** One session of a runtime; `tag` is what its system prompt carries (`bench:<tag>`). */
export type RuntimeSession = { tag: string; turn(command: string): Promise<void> };

export type PeerRuntime = {
  /** For the report, e.g. "this Worker", "Agents SDK". */
  name: string;
  mode: StepMode;
  /** A new session whose history holds `size` messages (the bench's realistic seed). */
  seed(size: number, label: string): Promise<RuntimeSession>;
};

/** A running runtime and how to stop it (every server or process it started). */
export type StartedRuntime = { runtimes: PeerRuntime[]; stop(): Promise<void> };

export const newTag = (label: string): string => `${label}-${randomUUID().slice(0, 8)}`;
