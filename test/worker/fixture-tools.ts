/**
 * Tools that exist only in the test Worker, each built to exercise one behaviour of a session:
 * slow work with partial results, work counted in KV (to prove a restart never re-runs a call),
 * termination, and the faults of the reliability suite (throws, hangs, malformed or huge results,
 * late or floods of partial results).
 */
import type { AgentTool, ToolRegistry } from "../../src/core/index.ts";
import { sleep } from "../support/time.ts";

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
  env: ["TOOL_INDEX"],
  async execute(toolCallId, args, signal, _onPartial, context) {
    const kv = (context!.env as KvEnv).TOOL_INDEX;
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

const hangs: AgentTool = {
  name: "hangs",
  label: "Hangs",
  description: "Never returns and ignores its signal; its timeoutMs bounds it.",
  inputSchema: { type: "object", properties: {} },
  timeoutMs: 200,
  execute: () => new Promise(() => undefined),
};

const malformed: AgentTool = {
  name: "malformed",
  label: "Malformed",
  description: "Returns something that is not a tool result.",
  inputSchema: { type: "object", properties: {} },
  execute: () => ({ content: "not an array" }) as unknown as ReturnType<AgentTool["execute"]>,
};

const lateUpdates: AgentTool = {
  name: "lateUpdates",
  label: "Late Updates",
  description: "Reports partial results after it has already returned.",
  inputSchema: { type: "object", properties: {} },
  execute: (_id, _args, _signal, onPartialResult) => {
    onPartialResult({ early: true });
    setTimeout(() => onPartialResult({ late: true }), 20);
    return { content: [{ type: "text", text: "returned" }], details: {}, terminate: false };
  },
};

const hugeOutput: AgentTool = {
  name: "hugeOutput",
  label: "Huge Output",
  description: "Returns far more text than may be stored.",
  inputSchema: { type: "object", properties: { chars: { type: "integer" } } },
  execute: (_id, args) => ({
    content: [{ type: "text", text: "y".repeat(typeof args.chars === "number" ? args.chars : 300_000) }],
    details: {},
    terminate: false,
  }),
};

const chatty: AgentTool = {
  name: "chatty",
  label: "Chatty",
  description: "Streams `count` partial results, then returns.",
  inputSchema: { type: "object", properties: { count: { type: "integer" } } },
  parallelToolExecute: true,
  async execute(_id, args, _signal, onPartialResult) {
    const count = typeof args.count === "number" ? args.count : 100;
    for (let i = 0; i < count; i++) {
      onPartialResult({ i, padding: "p".repeat(200) });
      if (i % 100 === 0) await sleep(0);
    }
    return { content: [{ type: "text", text: `sent ${count}` }], details: {}, terminate: false };
  },
};

const oddValues: AgentTool = {
  name: "oddValues",
  label: "Odd Values",
  description: "Returns details no JSON can hold as they are: a BigInt, a cycle and 3 MB of text.",
  inputSchema: { type: "object", properties: {} },
  execute: (_id, _args, _signal, onPartialResult) => {
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    onPartialResult({ progress: 1n, cyclic });
    return {
      content: [{ type: "text", text: "odd but fine" }],
      details: { count: 2n ** 70n, cyclic, blob: "z".repeat(3 * 1024 * 1024) },
      terminate: false,
    };
  },
};

const moduleOf = (tool: AgentTool) => ({ getTool: () => tool });

export const fixtureTools: ToolRegistry = {
  boom: moduleOf(boom),
  chatty: moduleOf(chatty),
  countedWork: moduleOf(countedWork),
  finish: moduleOf(finish),
  hangs: moduleOf(hangs),
  hugeOutput: moduleOf(hugeOutput),
  lateUpdates: moduleOf(lateUpdates),
  malformed: moduleOf(malformed),
  oddValues: moduleOf(oddValues),
  slowEcho: moduleOf(slowEcho),
};
