/**
 * Helpers for the sub-agent tests: the sub-agent events a parent's stream carries (toolExecUpdate with
 * `partialResult.subAgent`), waiting on a condition, and raw access to a child session by its id.
 */
import { api, type SseEvent, type TestSession } from "../session/support.ts";
import { sleep } from "../support/time.ts";

export type ChildEvent = { sessionId: string; event: Record<string, unknown> & { type: string; seq: number } };

/** The child events relayed in `events`, in order. */
export function childEvents(events: readonly SseEvent[]): ChildEvent[] {
  return events
    .filter((e) => e.event === "toolExecUpdate")
    .map((e) => (e.json.partialResult as { subAgent?: ChildEvent } | undefined)?.subAgent)
    .filter((s): s is ChildEvent => s !== undefined);
}

export async function waitFor(condition: () => Promise<boolean>, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(25);
  }
}

/** GET /v1/sessions/<childId> with `key` (the parent's, or another). */
export async function childSnapshot(childId: string, key?: string): Promise<Response> {
  return api(`/v1/sessions/${childId}`, key === undefined ? {} : { key });
}

export type ChildSnapshot = {
  status: string;
  tools: string[];
  messages: { role: string; content: { type: string; text?: string }[]; stopReason?: string }[];
  usage: unknown;
  subAgent?: { parentId: string; toolCallId: string; depth: number };
};

export async function readChild(childId: string, parent: TestSession): Promise<ChildSnapshot> {
  const res = await childSnapshot(childId, parent.key);
  if (res.status !== 200) throw new Error(`child snapshot: ${res.status} ${await res.text()}`);
  return res.json();
}
