/**
 * The Agents SDK side of the step comparison: an AIChatAgent (one Durable Object per session, the SDK's
 * own message store) whose turn is the AI SDK's tool loop against the bench LLM through @ai-sdk/openai's
 * Chat Completions model, with the same benchEcho tool. Streaming turns return the UI message stream
 * (AIChatAgent stores its chunks as usual); non-streaming turns use generateText and return the text.
 * Driven over HTTP by bench/peers/agents-sdk-driver.ts: POST /seed/:name, POST /turn/:name. With the var
 * METER=true (the cost measure) its SQL, alarms and stubs are metered as ours are (scripts/bench/sql-meter.ts)
 * and GET /__bench/meter answers the counters.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { AIChatAgent } from "@cloudflare/ai-chat";
import { getAgentByName } from "agents";
import { convertToModelMessages, generateText, isStepCount, jsonSchema, streamText, tool, type UIMessage } from "ai";
import { countRequest, meterNamespace, meterState, readMeter } from "../../../scripts/bench/sql-meter.ts";

// The SDK's generics require `Cloudflare.Env`, which in this repository declares the main Worker's bindings
// (worker-configuration.d.ts); this Worker has only its own, which the intersection adds.
type Env = Cloudflare.Env & {
  BENCH_CHAT: DurableObjectNamespace<BenchChat>;
  OPENAI_BASE_URL: string;
  OPENAI_MODEL: string;
  METER?: string;
};
export type TurnResult = { status: string; error?: string; messages: number };

/** Far above the bench's `steps K` turns; a runaway loop still ends. */
const MAX_STEPS = 100;

const benchEcho = tool({
  description: "Returns the given text unchanged (benchmark tool).",
  inputSchema: jsonSchema<{ text?: string }>({ type: "object", properties: { text: { type: "string" } }, required: [] }),
  execute: async ({ text }) => `echo ${text ?? ""}`,
});

export class BenchChat extends AIChatAgent<Env> {
  #streaming = true;

  constructor(ctx: DurableObjectState, env: Env) {
    super(env.METER === "true" ? meterState(ctx) : ctx, env);
  }

  override async alarm(): Promise<void> {
    if (this.env.METER === "true") countRequest("object");
    return super.alarm();
  }

  /** Puts the seeded history straight into the SDK's message store. */
  async seed(messages: UIMessage[]): Promise<number> {
    await this.persistMessages(messages);
    return this.messages.length;
  }

  /** One user message and the run it starts, as `saveMessages` runs a programmatic turn. */
  async turn(command: string, streaming: boolean): Promise<TurnResult> {
    this.#streaming = streaming;
    const user: UIMessage = { id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text: command }] };
    const result = await this.saveMessages((messages) => [...messages, user]);
    return { status: result.status, ...(result.error === undefined ? {} : { error: result.error }), messages: this.messages.length };
  }

  override async onChatMessage(): Promise<Response> {
    const openai = createOpenAI({ baseURL: this.env.OPENAI_BASE_URL, apiKey: "bench" });
    const options = {
      model: openai.chat(this.env.OPENAI_MODEL),
      system: `bench:${this.name}`,
      messages: await convertToModelMessages(this.messages),
      tools: { benchEcho },
      stopWhen: isStepCount(MAX_STEPS),
    };
    if (this.#streaming) return streamText(options).toUIMessageStreamResponse();
    const result = await generateText(options);
    return new Response(result.text);
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (env.METER === "true") {
      if (url.pathname === "/__bench/meter") return Response.json(readMeter(url.searchParams.has("reset")));
      countRequest("worker");
      env = { ...env, BENCH_CHAT: meterNamespace(env.BENCH_CHAT) };
    }
    const [, action, name] = url.pathname.split("/");
    if (request.method !== "POST" || !name || (action !== "seed" && action !== "turn")) return new Response("not found", { status: 404 });
    const agent = await getAgentByName<Env, BenchChat>(env.BENCH_CHAT, decodeURIComponent(name));
    const body = (await request.json()) as { messages?: UIMessage[]; command?: string; streaming?: boolean };
    if (action === "seed") return Response.json({ messages: await agent.seed(body.messages ?? []) });
    return Response.json(await agent.turn(body.command ?? "", body.streaming !== false));
  },
} satisfies ExportedHandler<Env>;
