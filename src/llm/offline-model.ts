/**
 * The built-in offline demo model, used when MODEL_PROVIDER is "offline" or no OPENAI_API_KEY is set (it
 * says which, so a user with a key knows why it is not used): an LlmCall with no network that
 * answers deterministically from request.messages and request.tools. A user turn asking for offered tools
 * gets tool calls (offline-intent.ts reads which and their arguments); fresh tool results get a text
 * summary; anything else gets a short text saying what it is and which tools it could use. A compaction's
 * summary call (no tools, the summary prompt) gets a deterministic summary: the user's latest requests and
 * the tools used, rolled into the previous summary.
 * Text is streamed word by word to onTextDelta; an aborted signal makes it throw.
 */
import {
  type ChatMessage,
  type ChatTool,
  type LlmCall,
  type LlmRequest,
  type LlmResponse,
  SUMMARY_PROMPT_TITLE,
  type TextContent,
  type ToolCallContent,
} from "../core/index.ts";
import { abortedError } from "./llm-error.ts";
import { planToolCalls } from "./offline-intent.ts";
import { planProgram, programResultLines, RUN_CODE_TOOL } from "./offline-program.ts";
import { listJsonLength } from "./request-json.ts";
import { sleep } from "./retry.ts";
import { estimateUsage } from "./usage.ts";

export const OFFLINE_API = "offline";
export const OFFLINE_MODEL = "offline-demo";
/** Tool output quoted in a summary is cut here so one huge result cannot flood the answer. */
const MAX_QUOTED_RESULT_CHARS = 600;

export type OfflineModelOptions = {
  /** Pause between streamed words, so a demo UI shows the stream; default 0 (no timers). */
  wordDelayMs?: number;
  /** Why it runs: MODEL_PROVIDER says "offline", or no provider is set and there is no key (default). */
  reason?: OfflineReason;
};
export type OfflineReason = "configured" | "no-key";

const REASONS: Readonly<Record<OfflineReason, string>> = {
  configured: 'MODEL_PROVIDER is "offline"',
  "no-key": "no OPENAI_API_KEY is set",
};

type Reply = { kind: "text"; text: string } | { kind: "toolCalls"; calls: ToolCallContent[] };

export function createOfflineLlmCall(options: OfflineModelOptions = {}): LlmCall {
  return async (request, { signal, onTextDelta }) => {
    if (signal?.aborted) throw abortedError(signal.reason);
    const reply = decideReply(request, options.reason ?? "no-key");
    const content: (TextContent | ToolCallContent)[] = reply.kind === "text" ? [{ type: "text", text: reply.text }] : reply.calls;
    if (reply.kind === "text") await streamWords(reply.text, options.wordDelayMs ?? 0, onTextDelta, signal);
    const output = reply.kind === "text" ? reply.text : JSON.stringify(reply.calls);
    const response: LlmResponse = {
      role: "assistant",
      content,
      api: OFFLINE_API,
      provider: OFFLINE_API,
      model: OFFLINE_MODEL,
      usage: estimateUsage(listJsonLength(request.messages) + listJsonLength(request.tools), output),
      stopReason: reply.kind === "text" ? "stop" : "toolUse",
      timestamp: Date.now(),
    };
    return response;
  };
}

function decideReply(request: LlmRequest, reason: OfflineReason): Reply {
  if (isSummaryCall(request)) return { kind: "text", text: offlineSummary(request) };
  const conversation = request.messages.filter((m) => m.role !== "system");
  const latest = conversation[conversation.length - 1];
  if (latest?.role === "tool") return { kind: "text", text: summarizeToolResults(conversation) };
  if (latest?.role === "user") {
    // Code mode: several calls become one program.
    const program = planProgram(userText(latest), request.tools);
    const planned = program ? [{ name: RUN_CODE_TOOL, arguments: { code: program } }] : planToolCalls(userText(latest), request.tools);
    if (planned.length > 0) {
      // Numbered after the calls already in the history, so ids stay unique across a conversation.
      const earlier = conversation.reduce((n, m) => n + (m.role === "assistant" ? (m.tool_calls?.length ?? 0) : 0), 0);
      const calls = planned.map(
        (call, i): ToolCallContent => ({
          type: "toolCall",
          id: `offline_call_${earlier + i + 1}`,
          name: call.name,
          arguments: JSON.stringify(call.arguments),
        }),
      );
      return { kind: "toolCalls", calls };
    }
  }
  return { kind: "text", text: introduction(request.tools, reason) };
}

function userText(message: Extract<ChatMessage, { role: "user" }>): string {
  if (typeof message.content === "string") return message.content;
  return message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
}

/** "Here is what I found:" and one line per trailing tool result, named after the call it answers. */
function summarizeToolResults(conversation: readonly ChatMessage[]): string {
  const results: Extract<ChatMessage, { role: "tool" }>[] = [];
  let i = conversation.length - 1;
  for (; i >= 0; i--) {
    const m = conversation[i]!;
    if (m.role !== "tool") break;
    results.unshift(m);
  }
  const caller = conversation[i];
  const names = new Map((caller?.role === "assistant" ? (caller.tool_calls ?? []) : []).map((c) => [c.id, c.function.name]));
  const lines = results.flatMap((r) => {
    const name = names.get(r.tool_call_id) ?? r.tool_call_id;
    return (name === RUN_CODE_TOOL ? programResultLines(r.content)?.map(quoteLine) : undefined) ?? [`- ${name}: ${quote(r.content)}`];
  });
  return `Here is what I found:\n${lines.join("\n")}`;
}

const quoteLine = (line: string): string => quote(line);

function quote(content: string): string {
  const flat = content.replace(/\s+/g, " ").trim() || "(no output)";
  return flat.length > MAX_QUOTED_RESULT_CHARS ? `${flat.slice(0, MAX_QUOTED_RESULT_CHARS)}…` : flat;
}

function introduction(tools: readonly ChatTool[], reason: OfflineReason): string {
  const intro = `I am the offline demo model (${REASONS[reason]}), so I only understand simple requests.`;
  if (tools.length === 0) return `${intro} No tools are available in this session, so there is little I can do.`;
  const names = tools.map((t) => t.function.name);
  return `${intro} I can use these tools: ${names.join(", ")}. Ask for one by name, e.g. "use ${names[0]}", and give arguments as key=value pairs.`;
}

async function streamWords(
  text: string,
  wordDelayMs: number,
  onTextDelta: ((text: string) => void) | undefined,
  signal: AbortSignal | undefined,
): Promise<void> {
  for (const word of text.match(/\S+\s*|\s+/g) ?? []) {
    if (signal?.aborted) throw abortedError(signal.reason);
    onTextDelta?.(word);
    if (wordDelayMs > 0) await sleep(wordDelayMs, signal).catch((reason: unknown) => Promise.reject(abortedError(reason)));
  }
}

/** Requests the offline summary keeps, newest last. */
const MAX_SUMMARY_REQUESTS = 8;
const SUMMARY_EXCERPT_CHARS = 120;

/** A compaction's summary call: no tools, and the summary prompt as the system message. */
function isSummaryCall(request: LlmRequest): boolean {
  const first = request.messages[0];
  return request.tools.length === 0 && first?.role === "system" && first.content.startsWith(SUMMARY_PROMPT_TITLE);
}

/**
 * What the offline model can summarise without understanding: the user's requests (an excerpt of each, the
 * newest kept) and how often each tool was used, the previous summary's rolled in.
 */
function offlineSummary(request: LlmRequest): string {
  const last = request.messages[request.messages.length - 1];
  const transcript = last?.role === "user" ? userText(last) : "";
  const requests: string[] = [];
  const tools = new Map<string, number>();
  let earlier = 0;
  for (const line of transcript.split("\n")) {
    const asked = /^- User: (.*)$/.exec(line) ?? /^User: (.*)$/.exec(line);
    if (asked) requests.push(excerpt(asked[1]!));
    const used = /^- Tools used: (.*)$/.exec(line);
    if (used)
      for (const [, name, times] of used[1]!.matchAll(/([\w.-]+) ×(\d+)/g)) tools.set(name!, (tools.get(name!) ?? 0) + Number(times));
    if (line.startsWith("Assistant: "))
      for (const [, name] of line.matchAll(/\[called ([\w.-]+) \(/g)) tools.set(name!, (tools.get(name!) ?? 0) + 1);
    const dropped = /^- \((\d+) earlier requests not kept\)$/.exec(line);
    if (dropped) earlier += Number(dropped[1]);
  }
  const lines = ["Summary of the earlier conversation (offline model):"];
  const kept = requests.slice(-MAX_SUMMARY_REQUESTS);
  const notKept = earlier + requests.length - kept.length;
  if (notKept > 0) lines.push(`- (${notKept} earlier requests not kept)`);
  for (const text of kept) lines.push(`- User: ${text}`);
  if (tools.size > 0) lines.push(`- Tools used: ${[...tools].map(([name, times]) => `${name} ×${times}`).join(", ")}`);
  return lines.join("\n");
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= SUMMARY_EXCERPT_CHARS ? flat : `${flat.slice(0, SUMMARY_EXCERPT_CHARS - 1)}…`;
}
