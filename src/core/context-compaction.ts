/**
 * Compaction (docs/compaction.md): when a step's request would pass `compactAt` × the budget, the oldest
 * whole turns are replaced by a summary the session's model writes in a separate call with no tools,
 * enough to bring the request to about half the budget. Summaries roll: a new one is written from the
 * previous one and the messages after it. The request then is the system prompt, one message carrying the
 * summary, and the messages after it; history keeps every original message.
 * Invariants: a cut only falls before a user message (between turns), or, when the current run alone passes
 * the threshold, before one of its assistant messages (after its newest user message, never past its last
 * step), so a tool call is never sent without its result; a cut inside a turn keeps that turn's user
 * message in the request. Cost per step without compaction: the estimate is kept and extended by the
 * messages added since the previous step; a summary in place adds one slice of the messages after it.
 */
import { describeContentBlock } from "./content-text.ts";
import { estimateMessageTokens, estimateToolTokens, tokensOf } from "./context-budget.ts";
import type { LlmRequest } from "./llm-request.ts";
import type { AgentMessage, AgentState, LlmResponse, Usage, UserMessage } from "./types.ts";

/** What the request says in place of the oldest messages: `summarizedMessages` counts history from its first message. */
export type ContextSummary = { text: string; summarizedMessages: number };

/** Share of the budget a request may reach before the session compacts. */
export const DEFAULT_COMPACT_AT = 0.8;
/** Share of the budget a compaction aims to leave the request at. */
const COMPACT_TARGET = 0.5;
/** Share of the budget the summary itself may take. */
const SUMMARY_SHARE = 0.1;
/**
 * A summary is stored and sent with every request: past twice its share (in characters, four a token, at
 * least this many) a model that ignored the word limit has its summary cut to its head and tail.
 */
const MIN_SUMMARY_CHARS = 2_000;
/** The agent's system prompt as the summary call sees it (for context): its head and tail past this. */
const MAX_AGENT_PROMPT_CHARS = 2_000;
/** A shortened transcript line keeps at least this much of its message. */
const MIN_TRANSCRIPT_LINE_CHARS = 240;
/** Share of the budget the summary call's transcript may take (older lines beyond it are left out). */
const TRANSCRIPT_SHARE = 0.6;
/** One message's text in the transcript the summary is written from: longer ones keep their head and tail. */
const MAX_TRANSCRIPT_MESSAGE_CHARS = 6_000;
/** The code an OpenAI-compatible server (and our Workers AI adapter) gives a request longer than the model's window. */
export const CONTEXT_OVERFLOW_CODE = "context_length_exceeded";

/** Whether an llmCall failure means "the request is longer than the model's context window". */
export function isContextOverflow(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === CONTEXT_OVERFLOW_CODE;
}

/** The first line of the summary call's system prompt: how the offline model knows a summary is asked of it. */
export const SUMMARY_PROMPT_TITLE = "You write the working memory of an AI agent whose conversation grew too long.";

/** The summary call's instructions: what an agent needs to carry on, in at most `words` words. */
export function summaryPrompt(words: number): string {
  return [
    SUMMARY_PROMPT_TITLE,
    "The oldest part of the conversation below will be replaced by your summary; the agent will see only the",
    "summary and the messages after it, so keep everything it needs to go on:",
    "- the user's goals, requests, preferences and constraints, in the user's own terms;",
    "- decisions made and why, and what was already done (so it is not done twice);",
    "- facts learnt from tools: names, identifiers, numbers, URLs, file paths, results and errors, exactly;",
    "- open questions, promises made to the user, and the next steps.",
    "When a previous summary is given, merge it with the new messages into one summary; drop nothing from it that still matters.",
    `Write plain text, terse, at most ${words} words. Do not address the user; do not invent anything.`,
  ].join("\n");
}

/** The message that carries a summary in the request (a user message: every provider accepts one anywhere). */
export function summaryMessage(summary: ContextSummary): UserMessage {
  return {
    role: "user",
    content: [
      {
        type: "text",
        text: `[Summary of the ${summary.summarizedMessages} earlier messages of this conversation, written when it grew long]\n${summary.text}`,
      },
    ],
    timestamp: 0,
  };
}

/** What a compaction did (the contextCompacted event's fields). */
export type CompactionResult = { summarizedMessages: number; tokensBefore: number; tokensAfter: number };

export type CompactorOptions = {
  maxContextTokens: number;
  compactAt: number;
  /** In-memory index of the first message of the current run (the messages from it on are its own). */
  runStart: number;
  llmCall: (request: LlmRequest, options: { signal?: AbortSignal; maxTokens?: number }) => Promise<LlmResponse>;
  /** The previous call's reported prompt tokens, if known. */
  promptTokens?: number;
};

/**
 * One run's compaction: the running estimate, the previous call's prompt tokens, the view of the state the
 * context policy gets (summary in place), and the summary call.
 */
export class Compactor {
  private promptTokens: number | undefined;
  private readonly runStart: number;
  /** The running estimate of the messages from `sumFrom` to `sumTo`. */
  private sumFrom = -1;
  private sumTo = 0;
  private sum = 0;
  private summaryMessageOf: { summary: ContextSummary; message: UserMessage } | undefined;

  constructor(
    private readonly state: AgentState,
    private readonly options: CompactorOptions,
  ) {
    this.promptTokens = options.promptTokens;
    this.runStart = options.runStart;
  }

  get threshold(): number {
    return Math.floor(this.options.compactAt * this.options.maxContextTokens);
  }

  /** The in-memory index of the first message the summary does not stand for. */
  boundary(): number {
    const summary = this.state.summary;
    if (!summary) return 0;
    return Math.min(this.state.messages.length, Math.max(0, summary.summarizedMessages - (this.state.historyStart ?? 0)));
  }

  /** The message that must stay after the summary: the turn's user message when the cut fell inside its steps. */
  private keptUser(boundary: number): number | undefined {
    const messages = this.state.messages;
    if (boundary === 0 || boundary >= messages.length || messages[boundary]!.role === "user") return undefined;
    for (let i = boundary - 1; i >= 0; i--) if (messages[i]!.role === "user") return i;
    return undefined;
  }

  private summaryMessage(): UserMessage | undefined {
    const summary = this.state.summary;
    if (!summary) return undefined;
    if (this.summaryMessageOf?.summary !== summary) this.summaryMessageOf = { summary, message: summaryMessage(summary) };
    return this.summaryMessageOf.message;
  }

  /** The state as the context policy sees it: the summary message and the messages after it, or the state itself. */
  view(): AgentState {
    const message = this.summaryMessage();
    if (!message) return this.state;
    const boundary = this.boundary();
    const kept = this.keptUser(boundary);
    const messages: AgentMessage[] = [message];
    if (kept !== undefined) messages.push(this.state.messages[kept]!);
    for (let i = boundary; i < this.state.messages.length; i++) messages.push(this.state.messages[i]!);
    return { ...this.state, messages };
  }

  /** The estimated tokens of the request as it stands (summary in place), extended by what was added since. */
  estimate(): number {
    const { state } = this;
    const boundary = this.boundary();
    if (this.sumFrom !== boundary || this.sumTo > state.messages.length) {
      this.sumFrom = boundary;
      this.sumTo = boundary;
      this.sum = 0;
    }
    for (; this.sumTo < state.messages.length; this.sumTo++) this.sum += estimateMessageTokens(state.messages[this.sumTo]!);
    return this.fixedTokens() + this.sum;
  }

  /** The system prompt, the tools, the summary and the kept user message. */
  private fixedTokens(): number {
    let tokens = 8 + tokensOf(this.state.systemPrompt.length);
    for (const tool of this.state.tools.values()) tokens += estimateToolTokens(tool);
    const message = this.summaryMessage();
    if (message) {
      tokens += estimateMessageTokens(message);
      const kept = this.keptUser(this.boundary());
      if (kept !== undefined) tokens += estimateMessageTokens(this.state.messages[kept]!);
    }
    return tokens;
  }

  /** A call answered: its reported prompt tokens judge the next step. */
  observe(response: LlmResponse): void {
    const input = response.usage?.inputTokens;
    this.promptTokens = typeof input === "number" && input > 0 ? input : undefined;
  }

  /** The request's size as judged: the larger of the estimate and the previous call's reported prompt tokens. */
  judged(): number {
    return Math.max(this.estimate(), this.promptTokens ?? 0);
  }

  /** Whether the request passes the threshold. */
  due(): boolean {
    return this.judged() > this.threshold;
  }

  /**
   * Summarises the oldest messages, rolling the previous summary in (whether due or not: the caller judges). Returns the new summary, the
   * compaction's figures and its usage, or undefined when nothing can be summarised. Throws when the
   * summary call fails.
   */
  async compact(
    signal?: AbortSignal,
    /** The model answered "context too long": the request is taken to be at least the whole budget. */
    overflowed = false,
    /** What is left of a token budget: the summary call's `max_tokens` at most. */
    maxTokens?: number,
  ): Promise<{ summary: ContextSummary; result: CompactionResult; usage: Usage | undefined } | undefined> {
    const { state, options } = this;
    const messages = state.messages;
    const tokensBefore = overflowed ? Math.max(this.judged(), options.maxContextTokens) : this.judged();
    const estimated = this.estimate();
    // Estimates run low on some text (code, non-Latin scripts): scale them by what the provider reported.
    const scale = Math.max(1, tokensBefore / Math.max(1, estimated));
    const boundary = this.boundary();
    const runStart = Math.min(Math.max(this.runStart, 0), messages.length);
    const reserve = Math.ceil(options.maxContextTokens * SUMMARY_SHARE);
    const target = options.maxContextTokens * COMPACT_TARGET;
    let fixed = 8 + tokensOf(state.systemPrompt.length) + reserve;
    for (const tool of state.tools.values()) fixed += estimateToolTokens(tool);
    // Tokens from each index to the end (estimated, scaled).
    const suffix = new Array<number>(messages.length + 1).fill(0);
    for (let i = messages.length - 1; i >= boundary; i--) suffix[i] = suffix[i + 1]! + estimateMessageTokens(messages[i]!) * scale;

    // Between turns: before a user message, up to (and including) the current run's first message.
    let cut: number | undefined;
    for (let i = boundary + 1; i <= runStart && i < messages.length; i++) {
      if (messages[i]!.role !== "user") continue;
      cut = i;
      if (fixed + suffix[i]! <= target) break;
    }
    // The current run alone passes the threshold: its older steps go too, never its newest user message
    // (kept after the summary) nor its last step.
    const from = cut ?? boundary;
    if (fixed + suffix[from]! > this.threshold) {
      let lastAssistant = -1;
      let user = -1;
      for (let i = messages.length - 1; i >= Math.max(runStart, boundary); i--) {
        const role = messages[i]!.role;
        if (role === "assistant" && lastAssistant < 0) lastAssistant = i;
        if (role === "user" && lastAssistant >= 0) {
          user = i;
          break;
        }
      }
      const userTokens = user >= 0 ? estimateMessageTokens(messages[user]!) * scale : 0;
      const first = Math.max(user >= 0 ? user + 2 : Math.max(runStart, boundary) + 1, from + 1);
      for (let i = first; i <= lastAssistant; i++) {
        if (messages[i]!.role !== "assistant") continue;
        cut = i;
        if (fixed + userTokens + suffix[i]! <= target) break;
      }
    }
    if (cut === undefined || cut <= boundary) return undefined;

    const keptBefore = this.keptUser(boundary);
    const keptAfter = this.keptUser(cut);
    const summarised: AgentMessage[] = [];
    if (keptBefore !== undefined && keptBefore !== keptAfter) summarised.push(messages[keptBefore]!);
    for (let i = boundary; i < cut; i++) if (i !== keptAfter) summarised.push(messages[i]!);
    const words = Math.max(50, Math.floor(reserve * 0.7));
    const request: LlmRequest = {
      messages: [
        { role: "system", content: summaryPrompt(words) },
        {
          role: "user",
          content: transcript(state.summary ?? undefined, summarised, options.maxContextTokens * TRANSCRIPT_SHARE * 4, state.systemPrompt),
        },
      ],
      tools: [],
    };
    const response = await options.llmCall(request, {
      ...(signal ? { signal } : {}),
      ...(maxTokens === undefined ? {} : { maxTokens }),
    });
    const answered = responseText(response);
    if (!answered) throw new Error("The summary call answered no text");
    const text = clip(answered, Math.max(MIN_SUMMARY_CHARS, reserve * 4 * 2));
    const summary: ContextSummary = { text, summarizedMessages: (state.historyStart ?? 0) + cut };
    state.summary = summary;
    // The threshold is judged again on the new request, not on the reported size of the old one.
    this.promptTokens = undefined;
    return {
      summary,
      result: { summarizedMessages: summary.summarizedMessages, tokensBefore, tokensAfter: this.estimate() },
      usage: response.usage,
    };
  }
}

/**
 * The summary call's user message: the agent's instructions (context), the previous summary, then the
 * messages to fold in, one per line. Past `maxChars` the longest lines are shortened to their head and tail
 * first (every message keeps its start and end); only if that is not enough are the oldest left out.
 */
export function transcript(
  previous: ContextSummary | undefined,
  messages: readonly AgentMessage[],
  maxChars = Infinity,
  agentPrompt = "",
): string {
  const head: string[] = [];
  if (agentPrompt)
    head.push(`The agent's instructions (context only, not to summarise):\n${clip(agentPrompt, MAX_AGENT_PROMPT_CHARS)}`, "");
  if (previous) head.push(`Previous summary (of ${previous.summarizedMessages} messages):\n${previous.text}`, "");
  const room = maxChars - head.join("\n").length;
  let lines = messages.map((message) => clip(lineOf(message)));
  const cap = lineCap(lines, room);
  if (cap !== undefined) lines = lines.map((line) => clip(line, Math.max(MIN_TRANSCRIPT_LINE_CHARS, cap)));
  let total = lines.reduce((n, line) => n + line.length + 1, 0);
  let left = 0;
  while (total > room && left < lines.length - 1) total -= lines[left++]!.length + 1;
  const kept = lines.slice(left);
  if (left > 0) kept.unshift(`[${left} older messages left out]`);
  return [...head, "Messages to summarise:", ...kept].join("\n");
}

/** The longest a line may be so that all fit in `room` (lines shorter than their share keep their length); undefined when all fit. */
function lineCap(lines: readonly string[], room: number): number | undefined {
  const lengths = lines.map((line) => line.length + 1).sort((a, b) => a - b);
  if (lengths.reduce((n, len) => n + len, 0) <= room) return undefined;
  let remaining = room;
  for (let i = 0; i < lengths.length; i++) {
    const share = remaining / (lengths.length - i);
    if (lengths[i]! > share) return Math.floor(share) - 1;
    remaining -= lengths[i]!;
  }
  return undefined;
}

function lineOf(message: AgentMessage): string {
  switch (message.role) {
    case "user":
      return `User: ${message.content.map((block) => describeContentBlock(block)).join(" ")}`;
    case "assistant": {
      const parts: string[] = [];
      for (const block of message.content) {
        if (block.type === "text") parts.push(block.text);
        else if (block.type === "toolCall")
          parts.push(
            `[called ${block.name} (${block.id}) with ${typeof block.arguments === "string" ? block.arguments : JSON.stringify(block.arguments)}]`,
          );
      }
      return `Assistant: ${parts.join(" ")}`;
    }
    case "toolResult":
      return `Tool ${message.toolName} (${message.toolCallId})${message.isError ? " failed" : ""}: ${message.content.map((block) => describeContentBlock(block)).join(" ")}`;
  }
}

/** The text within `max` characters: its head and tail around a note of what was left out. */
function clip(text: string, max = MAX_TRANSCRIPT_MESSAGE_CHARS): string {
  if (text.length <= max) return text;
  const half = Math.max(1, Math.floor((max - 48) / 2));
  return `${text.slice(0, half)} […${text.length - 2 * half} characters left out…] ${text.slice(-half)}`;
}

function responseText(response: LlmResponse): string {
  const texts: string[] = [];
  for (const block of response.content ?? []) {
    if (typeof block === "object" && block !== null && (block as { type?: unknown }).type === "text") {
      const text = (block as { text?: unknown }).text;
      if (typeof text === "string") texts.push(text);
    }
  }
  return texts.join("").trim();
}
