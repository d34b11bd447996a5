/**
 * Tools that exist only in the test Worker, each built to exercise one behaviour of a session:
 * slow work with partial results, work counted in KV (to prove a restart never re-runs a call),
 * termination, and a throw.
 */
import type { AgentTool, ToolRegistry } from "../../src/core/index.ts";

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(new Error("aborted"));
    }, { once: true });
  });

const slowEcho: AgentTool = {
  name: "slowEcho",
  label: "Slow Echo",
  description: "Echoes text after a delay, reporting progress.",
  inputSchema: { type: "object", properties: { text: { type: "string" }, ms: { type: "integer", minimum: 0 } }, required: ["text"] },
  parallelToolExecute: true,
  async execute(_id, args, signal, onPartialResult) {
    const ms = typeof args.ms === "number" ? args.ms : 50;
    for (let i = 1; i <= 3; i++) {
      await sleep(ms / 3, signal);
      onPartialResult({ step: i });
    }
    return { content: [{ type: "text", text: `echo: ${String(args.text)}` }], details: {}, terminate: false };
  },
};

type KvEnv = { TOOL_INDEX: KVNamespace };

const countedWork: AgentTool = {
  name: "countedWork",
  label: "Counted Work",
  description: "Counts its own executions in KV, then works for `ms` milliseconds.",
  inputSchema: { type: "object", properties: { ms: { type: "integer", minimum: 0 } } },
  async execute(toolCallId, args, signal, _onPartial, context) {
    const kv = (context?.env as KvEnv).TOOL_INDEX;
    const key = `test-runs:${toolCallId}`;
    const before = Number((await kv.get(key)) ?? "0");
    await kv.put(key, String(before + 1));
    await sleep(typeof args.ms === "number" ? args.ms : 0, signal);
    return { content: [{ type: "text", text: `worked ${before + 1} time(s)` }], details: {}, terminate: false };
  },
};

const finish: AgentTool = {
  name: "finish",
  label: "Finish",
  description: "Ends the run (async handoff).",
  inputSchema: { type: "object", properties: { note: { type: "string" } } },
  execute: (_id, args) => ({ content: [{ type: "text", text: `handed off: ${String(args.note ?? "")}` }], details: {}, terminate: true }),
};

const boom: AgentTool = {
  name: "boom",
  label: "Boom",
  description: "Always throws.",
  inputSchema: { type: "object", properties: {} },
  execute: () => {
    throw new Error("boom went the tool");
  },
};

const moduleOf = (tool: AgentTool) => ({ getTool: () => tool });

export const fixtureTools: ToolRegistry = {
  boom: moduleOf(boom),
  countedWork: moduleOf(countedWork),
  finish: moduleOf(finish),
  slowEcho: moduleOf(slowEcho),
};
