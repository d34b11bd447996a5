/**
 * A live session as AgentSession holds it: its parts (session-parts.ts) and the run driver over them.
 * Built by session-loader.ts; read by AgentSession and the views (snapshot, settings, approvals).
 */
import type { RunDriver } from "./run/run-driver.ts";
import type { SessionParts } from "./session-parts.ts";

export type Session = SessionParts & { runs: RunDriver };
