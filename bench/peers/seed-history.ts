/**
 * The seeded history every runtime of the comparison starts from, in one canonical form: the OpenAI Chat
 * Completions messages our Worker would send after `seed N` (built by the bench LLM's own planReply, so
 * the content is the same message for message), and its translations into the peers' message stores
 * (AI SDK UI messages for the Agents SDK, pi-agent-core transcript messages). Called by the peer drivers.
 * Invariant: a translation sends back, on the wire, the same roles, tool calls and texts in the same order.
 */
import { FINAL_TEXT, planReply, type WireMessage } from "../../scripts/bench/bench-llm.ts";

export type SeedCall = { id: string; name: string; arguments: string };
export type SeedMessage =
  | { role: "user"; content: string }
  | {
      role: "assistant";
      content: string | null;
      tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
    }
  | { role: "tool"; tool_call_id: string; content: string };

/** What benchEcho answers in every runtime (as scripts/bench/tools/benchEcho.ts does in ours). */
export const echoResult = (text: string): string => `echo ${text}`;

/** The messages (system prompt excluded) of a session seeded to `size` messages: one `seed` turn. */
export function seedHistory(size: number): SeedMessage[] {
  const messages: SeedMessage[] = [{ role: "user", content: `seed ${size}` }];
  for (let step = 0; ; step++) {
    const reply = planReply(`seed ${size}`, messages as WireMessage[], messages.length);
    const calls = (reply.toolCalls ?? []).map((call, i) => ({
      id: `call_seed_${step}_${i}`,
      name: call.name,
      arguments: JSON.stringify(call.arguments),
    }));
    if (calls.length === 0) {
      messages.push({ role: "assistant", content: reply.text ?? FINAL_TEXT });
      return messages;
    }
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })),
    });
    for (const call of calls) {
      const text = (JSON.parse(call.arguments) as { text?: string }).text ?? "";
      messages.push({ role: "tool", tool_call_id: call.id, content: echoResult(text) });
    }
  }
}

/** One assistant turn as the AI SDK stores it: a `step-start` per LLM step, tool parts with their output. */
type UiPart =
  | { type: "step-start" }
  | { type: "text"; text: string; state: "done" }
  | { type: `tool-${string}`; toolCallId: string; state: "output-available"; input: unknown; output: unknown };
export type SeedUiMessage = { id: string; role: "user" | "assistant"; parts: UiPart[] };

/** The seed as AI SDK UI messages (what AIChatAgent persists): one user message, one assistant message per turn. */
export function toUiMessages(history: readonly SeedMessage[], idPrefix: string): SeedUiMessage[] {
  const out: SeedUiMessage[] = [];
  const outputs = new Map(history.flatMap((m) => (m.role === "tool" ? [[m.tool_call_id, m.content] as const] : [])));
  let assistant: SeedUiMessage | undefined;
  for (const m of history) {
    if (m.role === "user") {
      assistant = undefined;
      out.push({ id: `${idPrefix}-${out.length}`, role: "user", parts: [{ type: "text", text: m.content, state: "done" }] });
    } else if (m.role === "assistant") {
      if (!assistant) out.push((assistant = { id: `${idPrefix}-${out.length}`, role: "assistant", parts: [] }));
      assistant.parts.push({ type: "step-start" });
      for (const call of m.tool_calls ?? []) {
        assistant.parts.push({
          type: `tool-${call.function.name}`,
          toolCallId: call.id,
          state: "output-available",
          input: JSON.parse(call.function.arguments),
          output: outputs.get(call.id) ?? "",
        });
      }
      if (m.content) assistant.parts.push({ type: "text", text: m.content, state: "done" });
    }
  }
  return out;
}

/** pi-agent-core transcript messages (user, assistant with toolCall blocks, toolResult), minus the system prompt. */
export type SeedPiMessage = Record<string, unknown> & { role: "user" | "assistant" | "toolResult" };

export function toPiMessages(history: readonly SeedMessage[], model: { api: string; provider: string; id: string }): SeedPiMessage[] {
  const timestamp = 0;
  const usage = {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
  const names = new Map<string, string>();
  return history.map((m): SeedPiMessage => {
    switch (m.role) {
      case "user":
        return { role: "user", content: m.content, timestamp };
      case "assistant": {
        const calls = (m.tool_calls ?? []).map((c) => {
          names.set(c.id, c.function.name);
          return { type: "toolCall", id: c.id, name: c.function.name, arguments: JSON.parse(c.function.arguments) as unknown };
        });
        const content = [...(m.content ? [{ type: "text", text: m.content }] : []), ...calls];
        return {
          role: "assistant",
          content,
          api: model.api,
          provider: model.provider,
          model: model.id,
          usage,
          stopReason: calls.length ? "toolUse" : "stop",
          timestamp,
        };
      }
      case "tool":
        return {
          role: "toolResult",
          toolCallId: m.tool_call_id,
          toolName: names.get(m.tool_call_id) ?? "",
          content: [{ type: "text", text: m.content }],
          isError: false,
          timestamp,
        };
      default:
        return m satisfies never;
    }
  });
}
