/**
 * Code mode against plain tool calls, on a mock model and a `wrangler dev` (CODE_MODE on) of its own: five
 * chained benchEcho calls (each call's argument the previous result) made one per step, and as one runCode
 * program, interleaved on fresh sessions. Reports model requests, request bytes and wall time per task as
 * code ÷ plain; one nested call (a program of 20 calls minus one of none, per call) against a direct call
 * (a plain chain of 5 minus a turn of none, per call); and the CPU-limit instrumentation on compute-bound
 * code (instrumented ÷ plain, in this Node's V8).
 */
import { startWranglerDev } from "../../support/wrangler-dev.ts";
import { startMockOpenAi, type MockReply, type RecordedRequest } from "../../support/mock-openai-server.ts";
import { instrumentProgram } from "../../src/code-mode/instrument.ts";
import { createBenchClient, createBenchSession, nowMs, runTurn, type BenchSession } from "./driver.ts";
import type { Headline } from "./stats.ts";
import { summarize, type Summary } from "./stats.ts";

const CHAIN = 5;
const NESTED_PROGRAM_CALLS = 20;

type WireMessage = { role?: string; content?: unknown };

/** The chain as the model writes it in code mode: each call takes the previous result. */
const chainProgram = (calls: number) =>
  `let text = "v";\nfor (let i = 0; i < ${calls}; i++) text = await tools.benchEcho({ text: text.slice(-40) + i });\nreturn text;`;

/** The mock's answer: `plain N` chains N direct calls, `code N` writes one program of N calls; then "done". */
function reply(request: RecordedRequest): MockReply {
  const messages = (request.body.messages ?? []) as WireMessage[];
  const user = messages.findLast((m) => m.role === "user");
  const [mode, count] = String(typeof user?.content === "string" ? user.content : "").split(" ");
  const n = Number(count);
  const last = messages.at(-1);
  const results = messages.slice(messages.lastIndexOf(user!) + 1).filter((m) => m.role === "tool");
  if (mode === "code") {
    return last?.role === "user" ? { toolCalls: [{ name: "runCode", arguments: { code: chainProgram(n) } }] } : { text: "done" };
  }
  if (results.length >= n) return { text: "done" };
  const previous = last?.role === "tool" && typeof last.content === "string" ? last.content : "v";
  return { toolCalls: [{ name: "benchEcho", arguments: { text: previous.slice(-40) + results.length } }] };
}

type Turn = { requests: number; bytes: number; ms: number };

async function task(session: BenchSession, command: string, seen: () => RecordedRequest[]): Promise<Turn> {
  const before = seen().length;
  const t0 = nowMs();
  await runTurn(session, command);
  const ms = nowMs() - t0;
  const mine = seen()
    .slice(before)
    .filter((r) => JSON.stringify(r.body.messages?.[0] ?? "").includes(session.tag));
  return { requests: mine.length, bytes: mine.reduce((sum, r) => sum + r.bytes, 0), ms };
}

export async function measureCodeMode(
  dir: string,
  llmVars: (url: string) => Record<string, string>,
  reps: number,
): Promise<{ headlines: Headline[] } & Record<string, unknown>> {
  const mock = await startMockOpenAi();
  mock.setHandler(reply);
  const dev = await startWranglerDev({ cwd: dir, vars: { ...llmVars(mock.url), CODE_MODE: "true" } });
  try {
    const client = createBenchClient(dev.url);
    const run = async (mode: "plain" | "code", calls: number) => {
      const session = await createBenchSession(client, mode === "code" ? ["benchEcho", "runCode"] : ["benchEcho"], `${mode}${calls}`);
      return task(session, `${mode} ${calls}`, () => mock.requests);
    };
    await run("plain", CHAIN); // warm-up: both paths once
    await run("code", CHAIN);
    const [plain, code, plainNone, codeNone, codeMany]: [Turn[], Turn[], number[], number[], number[]] = [[], [], [], [], []];
    for (let i = 0; i < reps; i++) {
      // Interleaved, each on a fresh session: history length is the same for both.
      plain.push(await run("plain", CHAIN));
      code.push(await run("code", CHAIN));
      plainNone.push((await run("plain", 0)).ms);
      codeNone.push((await run("code", 0)).ms);
      codeMany.push((await run("code", NESTED_PROGRAM_CALLS)).ms);
      mock.requests.length = 0;
    }
    const [plainMs, codeMs] = [summarize(plain.map((t) => t.ms)), summarize(code.map((t) => t.ms))];
    const directCallMs = (plainMs.p50 - summarize(plainNone).p50) / CHAIN;
    const nestedCallMs = (summarize(codeMany).p50 - summarize(codeNone).p50) / NESTED_PROGRAM_CALLS;
    const instrumentation = await measureInstrumentation(reps);
    const mean = (turns: Turn[], key: "requests" | "bytes") => turns.reduce((s, t) => s + t[key], 0) / turns.length;
    const of = (turns: Turn[], ms: Summary) => ({ requests: mean(turns, "requests"), bytes: mean(turns, "bytes"), ms });
    const result = { plain: of(plain, plainMs), code: of(code, codeMs), nestedCallMs, directCallMs, instrumentation };
    const chain = `(${CHAIN} chained calls)`;
    const headlines = (
      [
        [`code mode ÷ plain: model requests ${chain}`, result.code.requests / result.plain.requests, "×"],
        [`code mode ÷ plain: request bytes ${chain}`, result.code.bytes / result.plain.bytes, "×"],
        [`code mode ÷ plain: wall time p50 ${chain}`, codeMs.p50 / plainMs.p50, "×"],
        ["nested call ÷ direct call (zero-latency model)", nestedCallMs / directCallMs, "×"],
        ["one nested call", nestedCallMs, "ms"],
        ["CPU-limit instrumentation: tight loop", instrumentation.loopRatio, "×"],
        ["CPU-limit instrumentation: recursion", instrumentation.recursionRatio, "×"],
        ["parse and instrument a 50-line program p50", instrumentation.instrumentMs.p50, "ms"],
      ] as const
    ).map(([name, value, unit]): Headline => ({ name, value, unit }));
    return { ...result, headlines };
  } finally {
    await dev.stop();
    await mock.close();
  }
}

const LOOP = "let s = 0;\nfor (let i = 0; i < 20000000; i++) { s = (s + i * 7) % 1000003; }\nreturn s;";
const RECURSION = "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\nreturn fib(27);";

/** Compute-bound code, plain and instrumented, in this process's V8 (the engine workerd embeds). */
async function measureInstrumentation(reps: number) {
  const ratio = async (body: string) => {
    const plain = await compile(`export default (async function () {\n${body}\n});`);
    const instrumented = await instrumentProgram(body);
    if (!instrumented.ok) throw new Error(instrumented.error);
    const counted = await compile(
      instrumented.module.replace(
        /^import [^;]+;/,
        "let n = 0; function __codeModeStep(k = 1) { n += k; if (n > 1e12) throw new Error('limit'); }",
      ),
    );
    const plainMs: number[] = [];
    const countedMs: number[] = [];
    for (let i = 0; i < Math.max(3, reps); i++) {
      plainMs.push(await time(plain));
      countedMs.push(await time(counted));
    }
    return summarize(countedMs).p50 / summarize(plainMs).p50;
  };
  const program = Array.from(
    { length: 50 },
    (_, i) =>
      `const v${i} = await tools.benchEcho({ text: String(${i}) }); if (v${i}.length > 1000) { for (const c of v${i}) console.log(c); }`,
  ).join("\n");
  const instrumentMs: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t0 = nowMs();
    await instrumentProgram(program);
    instrumentMs.push(nowMs() - t0);
  }
  return { loopRatio: await ratio(LOOP), recursionRatio: await ratio(RECURSION), instrumentMs: summarize(instrumentMs.slice(1)) };
}

type Program = (tools: unknown, console: unknown) => Promise<unknown>;

const compile = async (source: string) =>
  ((await import(`data:text/javascript;base64,${Buffer.from(source).toString("base64")}`)) as { default: Program }).default;

async function time(program: Program): Promise<number> {
  const t0 = nowMs();
  await program({}, console);
  return nowMs() - t0;
}
