/**
 * The benchmark's LLM: the project's zero-latency mock OpenAI server with a handler that scripts tool calls
 * from the session's last user message: `seed H [B]` grows history to H messages with benchEcho batches
 * (of B calls, default 50; the one state kept is each session's history length), `steps K` makes K single
 * benchEcho calls in a row; each ends with a short text.
 * Its timing taps record each gap between a tool-call reply's last byte leaving and the last byte of the
 * same session's next request arriving. A compaction's summary call (no tools, the summary prompt) is
 * answered with a short summary and timed apart, so a step's gap can be told without it; each session's
 * largest request is kept.
 */
import { SUMMARY_PROMPT_TITLE } from "../../src/core/index.ts";
import { startMockOpenAi, type MockReply, type RecordedRequest } from "../../support/mock-openai-server.ts";

/** Tool calls per seeding reply: big batches seed 1,000 messages in ~20 steps, within the loop's maxSteps. */
const SEED_BATCH = 50;
/**
 * Characters of prose per seeded tool call. benchEcho returns its text, so a call (in its assistant
 * message) and its result carry it twice; with the wire's ids and field names that is ~230 bytes of request
 * JSON per history message (~230 KB at 1,000 messages), as in the figures the targets were set against.
 */
export const SEED_TEXT_CHARS = 40;
const SEED_WORDS = (
  "the forecast for the coast shows light rain in the morning and clearing skies by noon while inland " +
  "temperatures climb to twenty four degrees with a gentle breeze from the west and humidity near sixty " +
  "percent so an umbrella may help early but sunglasses will matter more by the afternoon walk home"
).split(" ");
export const FINAL_TEXT = "done";

export type StepGap = {
  /** The session tag (from its system prompt). */
  tag: string;
  command: string;
  /** Messages in history (system prompt excluded) in the request that ended the gap. */
  history: number;
  /** How many tool calls the reply before the gap carried. */
  calls: number;
  /**
   * From the last byte of the tool-call reply to the last byte of the next request's body, in ms: a model
   * starts only on the whole request, and a Worker may send its headers before its body is complete.
   */
  gapMs: number;
  /** Body size of the request that ended the gap. */
  requestBytes: number;
  /** The gap held a compaction's summary call: the time it took (from its request to its reply), already left out of gapMs. */
  summaryMs?: number;
};

/** A compaction's summary call: the session it summarised for, and its body size. */
export type SummaryCall = { tag: string; requestBytes: number };

export type BenchLlm = {
  url: string;
  gaps: StepGap[];
  summaries: SummaryCall[];
  /** The largest request body each session (by tag) sent, summary calls aside. */
  largestRequest: Map<string, number>;
  /** Drops recorded gaps and requests (between phases, to keep memory flat). */
  clear(): void;
  close(): Promise<void>;
};

export type WireMessage = { role?: string; content?: unknown; tool_calls?: unknown[] };
type ReplyInfo = { tag: string; command: string; calls: number };

export const systemPromptFor = (tag: string): string => `bench:${tag}`;

export async function startBenchLlm(): Promise<BenchLlm> {
  const gaps: StepGap[] = [];
  const summaries: SummaryCall[] = [];
  const largestRequest = new Map<string, number>();
  // A summary call in flight or answered since the session's last tool reply: when its request came, when its reply left.
  const summaryOf = new Map<string, { receivedAt: number; repliedAt?: number }>();
  const summaryRequests = new WeakMap<RecordedRequest, string>();
  const replies = new WeakMap<RecordedRequest, ReplyInfo>();
  const lastToolReplyAt = new Map<string, number>();
  // Messages in each session's history (system prompt excluded), counted from what the requests and
  // replies add: a long session's request carries only the window its context policy sends.
  const historyOf = new Map<string, number>();

  const mock = await startMockOpenAi({
    keepRequests: false,
    hooks: {
      received(request, receivedAt, bodyReceivedAt) {
        const summaryTag = summaryTagOf(request);
        if (summaryTag !== undefined) {
          summaryRequests.set(request, summaryTag);
          summaries.push({ tag: summaryTag, requestBytes: request.bytes });
          summaryOf.set(summaryTag, { receivedAt });
          return;
        }
        const { tag, command, messages } = readRequest(request);
        largestRequest.set(tag, Math.max(largestRequest.get(tag) ?? 0, request.bytes));
        const repliedAt = lastToolReplyAt.get(tag);
        lastToolReplyAt.delete(tag);
        const summary = summaryOf.get(tag);
        summaryOf.delete(tag);
        const last = messages.at(-1);
        if (repliedAt !== undefined && last?.role === "tool") {
          const summaryMs =
            summary?.repliedAt !== undefined && summary.receivedAt >= repliedAt ? summary.repliedAt - summary.receivedAt : undefined;
          gaps.push({
            tag,
            command,
            history: messages.length,
            calls: countCallsAfterLastUser(messages, true),
            gapMs: bodyReceivedAt - repliedAt - (summaryMs ?? 0),
            requestBytes: request.bytes,
            ...(summaryMs === undefined ? {} : { summaryMs }),
          });
        }
      },
      replied(request, repliedAt) {
        const summaryTag = summaryRequests.get(request);
        if (summaryTag !== undefined) {
          const summary = summaryOf.get(summaryTag);
          if (summary) summary.repliedAt = repliedAt;
          return;
        }
        const info = replies.get(request);
        if (info && info.calls > 0) lastToolReplyAt.set(info.tag, repliedAt);
      },
    },
  });
  mock.setHandler((request) => {
    if (summaryTagOf(request) !== undefined) return { text: SUMMARY_TEXT };
    const { tag, command, messages } = readRequest(request);
    let history = historyOf.get(tag) ?? 0;
    if (messages.at(-1)?.role === "user") history += 1; // a turn's first request: its user message is new
    const reply = planReply(command, messages, history);
    const calls = reply.toolCalls?.length ?? 0;
    historyOf.set(tag, history + (calls > 0 ? calls + 1 : 1));
    replies.set(request, { tag, command, calls });
    return reply;
  });

  const clear = () => {
    for (const list of [gaps, summaries, mock.requests]) list.length = 0;
    largestRequest.clear();
  };
  return { url: mock.url, gaps, summaries, largestRequest, clear, close: () => mock.close() };
}

/** What the bench LLM answers a summary call. */
export const SUMMARY_TEXT = "The user sent bench commands; each was answered with benchEcho and done.";

/** The session a compaction's summary call is for (its agent instructions carry the tag), or undefined when it is no summary call. */
function summaryTagOf(request: RecordedRequest): string | undefined {
  const [system, user] = (request.body.messages ?? []) as WireMessage[];
  if (system?.role !== "system" || !textOf(system.content).startsWith(SUMMARY_PROMPT_TITLE)) return undefined;
  return /\nbench:(\S+)/.exec(textOf(user?.content))?.[1] ?? "";
}

/** A message's text: a string, or the text parts of a content array (how some clients send even plain text). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part: { text?: unknown } | null) => (typeof part?.text === "string" ? part.text : "")).join("");
}

function readRequest(request: RecordedRequest): { tag: string; command: string; messages: WireMessage[] } {
  const all = (request.body.messages ?? []) as WireMessage[];
  // Clients other than ours (the step comparison's peers) may send the prompt as "developer" or as parts.
  const hasSystem = all[0]?.role === "system" || all[0]?.role === "developer";
  const system = hasSystem ? textOf(all[0]!.content) : "";
  const tag = system.startsWith("bench:") ? system.slice("bench:".length) : "";
  const messages = hasSystem ? all.slice(1) : all;
  return { tag, command: textOf(messages.findLast((m) => m.role === "user")?.content), messages };
}

/** Assistant tool-call messages (or, with `lastOnly`, the calls of the latest one) since the last user message. */
function countCallsAfterLastUser(messages: readonly WireMessage[], lastOnly = false): number {
  let rounds = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "user") break;
    if (m.role === "assistant" && Array.isArray(m.tool_calls)) {
      if (lastOnly) return m.tool_calls.length;
      rounds += 1;
    }
  }
  return rounds;
}

/** Deterministic prose of about `chars` characters, varied by `seed` so no two seeded messages repeat. */
export function seedText(seed: number, chars = SEED_TEXT_CHARS): string {
  let text = "";
  for (let i = seed; text.length < chars; i += 7) text += `${SEED_WORDS[i % SEED_WORDS.length]} `;
  return text.slice(0, chars).trimEnd();
}

/**
 * The reply to a request whose history (system prompt excluded) is `messages` (possibly only its newest
 * window) and holds `history` messages in all, for the command in force.
 */
export function planReply(command: string, messages: readonly WireMessage[], history = messages.length): MockReply {
  const [verb = "", ...rest] = command.trim().split(/\s+/);
  const nums = rest.map(Number);
  const done: MockReply = { text: FINAL_TEXT };
  const rounds = countCallsAfterLastUser(messages);
  switch (verb) {
    case "seed": {
      // One more reply adds 1 message (text) or c+1 (c calls and their results); stop so the run ends at H.
      const target = nums[0] ?? 0;
      const room = target - history - 1;
      if (room < 2) return done;
      const count = Math.min(nums[1] ?? SEED_BATCH, room - 1);
      return { toolCalls: Array.from({ length: count }, (_, i) => ({ name: "benchEcho", arguments: { text: seedText(history + i) } })) };
    }
    case "steps":
      return rounds < (nums[0] ?? 1) ? { toolCalls: [{ name: "benchEcho", arguments: { text: "step" } }] } : done;
    default:
      return done;
  }
}
