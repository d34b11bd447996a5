/**
 * The pi-agent-core side of the step comparison, run as its own Node process (forked by pi-driver.ts, so
 * the agent never shares an event loop with the bench LLM or the driver): one pi `Agent` per session,
 * its transcript seeded with the canonical history, pi-ai's OpenAI Chat Completions API against the bench
 * LLM, the same benchEcho tool. Commands arrive over the IPC channel: seed, turn; each is answered once.
 * Written in erasable TypeScript only (Node strips the types). Invariant: a turn whose last assistant
 * message is an error or aborted answers with an error.
 */
import { Agent, type AgentMessage, type AgentTool } from "@earendil-works/pi-agent-core";
import { createModels, createProvider, type Model } from "@earendil-works/pi-ai";
import { openAICompletionsApi } from "@earendil-works/pi-ai/api/openai-completions.lazy";

export type PiCommand =
  | { id: number; type: "seed"; tag: string; messages: unknown[] }
  | { id: number; type: "turn"; tag: string; command: string };
export type PiAnswer = { id: number; ok: true; messages: number } | { id: number; ok: false; error: string };

export const PI_PROVIDER = "bench";

export function benchModel(baseUrl: string, id: string): Model<"openai-completions"> {
  return {
    id,
    name: id,
    api: "openai-completions",
    provider: PI_PROVIDER,
    baseUrl,
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 1_000_000,
    maxTokens: 4096,
  };
}

const benchEcho: AgentTool = {
  name: "benchEcho",
  label: "Bench echo",
  description: "Returns the given text unchanged (benchmark tool).",
  parameters: { type: "object", properties: { text: { type: "string" } }, required: [] },
  execute: async (_toolCallId, params) => {
    const text = typeof (params as { text?: unknown }).text === "string" ? (params as { text: string }).text : "";
    return { content: [{ type: "text", text: `echo ${text}` }], details: {} };
  },
};

function main(): void {
  const baseUrl = process.env.OPENAI_BASE_URL ?? "";
  const model = benchModel(baseUrl, process.env.OPENAI_MODEL ?? "bench-model");
  const models = createModels();
  models.setProvider(
    createProvider({
      id: PI_PROVIDER,
      baseUrl,
      auth: { apiKey: { name: "bench", resolve: async () => ({ auth: { apiKey: "bench" } }) } },
      models: [model],
      api: openAICompletionsApi(),
    }),
  );
  const agents = new Map<string, Agent>();
  const send = (answer: PiAnswer) => process.send?.(answer);

  async function handle(command: PiCommand): Promise<PiAnswer> {
    switch (command.type) {
      case "seed": {
        const agent = new Agent({
          initialState: { systemPrompt: `bench:${command.tag}`, model, tools: [benchEcho], messages: command.messages as AgentMessage[] },
          streamFn: models.streamSimple.bind(models),
          toolExecution: "parallel",
        });
        agents.set(command.tag, agent);
        return { id: command.id, ok: true, messages: agent.state.messages.length };
      }
      case "turn": {
        const agent = agents.get(command.tag);
        if (!agent) return { id: command.id, ok: false, error: `no session ${command.tag}` };
        await agent.prompt(command.command);
        const last = agent.state.messages.at(-1) as { role?: string; stopReason?: string; errorMessage?: string } | undefined;
        if (last?.role !== "assistant" || last.stopReason === "error" || last.stopReason === "aborted") {
          return {
            id: command.id,
            ok: false,
            error: `turn ended ${last?.stopReason ?? last?.role}: ${last?.errorMessage ?? agent.state.errorMessage ?? ""}`,
          };
        }
        return { id: command.id, ok: true, messages: agent.state.messages.length };
      }
      default:
        return command satisfies never;
    }
  }

  process.on("message", (command: PiCommand) => {
    handle(command).then(send, (err: unknown) =>
      send({ id: command.id, ok: false, error: err instanceof Error ? err.message : String(err) }),
    );
  });
  // The driver's exit (or a closed channel) ends this process too.
  process.on("disconnect", () => process.exit(0));
}

if (process.send) main();
