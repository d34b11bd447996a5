/**
 * The JavaScript the code-mode isolate runs besides the program: `runtime.js` (the step check the
 * instrumented program calls) and `runner.js` (the CodeRunner entrypoint: builds `tools` and `console`,
 * runs the program, answers `{ok, returned | error, line, logs}`), and `guard.js`, the same step check for
 * written tools' drafts (reset at each request: a draft's isolate serves many). Text, not host code: it
 * runs in Worker Loader isolates (run-program.ts, draft-tool.ts). Logs are bounded by lines and characters;
 * a thrown error's line is read from its stack's frame in program.js.
 */
import { PROGRAM_LINE_OFFSET } from "./instrument.ts";

/** Steps (loop iterations and function entries) a program may take; about a second of the tightest loop. */
export const MAX_PROGRAM_STEPS = 100_000_000;
/** Lines of console output kept, and characters in all. */
export const MAX_LOG_LINES = 100;
export const MAX_LOG_CHARS = 20_000;
/** The message of the CPU limit, as the model reads it. */
export const CPU_LIMIT_MESSAGE = "CPU limit: the program ran too long without waiting (an endless loop?) and was stopped";

export const RUNTIME_MODULE = `
let steps = 0;
export const state = { tripped: false };
const Fail = Error;
export function step(count = 1) {
  steps += count;
  if (steps > ${MAX_PROGRAM_STEPS} || state.tripped) {
    state.tripped = true;
    throw new Fail(${JSON.stringify(CPU_LIMIT_MESSAGE)});
  }
}
`;

export const RUNNER_MODULE = `
import { WorkerEntrypoint } from "cloudflare:workers";
import program from "./program.js";
import { state } from "./runtime.js";

const MAX_LINES = ${MAX_LOG_LINES};
const MAX_CHARS = ${MAX_LOG_CHARS};

function show(value) {
  if (typeof value === "string") return value;
  try {
    const json = JSON.stringify(value);
    return json === undefined ? String(value) : json;
  } catch {
    return String(value);
  }
}

function lineOf(err) {
  try {
    const match = /program\\.js:(\\d+):\\d+/.exec(String(err && err.stack));
    return match ? Number(match[1]) - ${PROGRAM_LINE_OFFSET} : undefined;
  } catch {
    return undefined;
  }
}

function describe(err) {
  try {
    if (err instanceof Error) return (err.name && err.name !== "Error" ? err.name + ": " : "") + (err.message || err.name);
    return "Thrown: " + show(err);
  } catch {
    return "The program threw a value that cannot be described";
  }
}

export class CodeRunner extends WorkerEntrypoint {
  async run(dispatcher, names) {
    const logs = [];
    let chars = 0;
    let dropped = 0;
    const log = (prefix) => (...args) => {
      const line = prefix + args.map(show).join(" ");
      if (logs.length >= MAX_LINES || chars + line.length > MAX_CHARS) {
        dropped += 1;
        return;
      }
      chars += line.length;
      logs.push(line);
    };
    const console = Object.freeze({ log: log(""), info: log(""), debug: log(""), warn: log("warn: "), error: log("error: ") });
    const tools = Object.create(null);
    for (const name of names) {
      tools[name] = async (args) => {
        if (state.tripped) throw new Error(${JSON.stringify(CPU_LIMIT_MESSAGE)});
        const json = JSON.stringify(args === undefined ? {} : args);
        const reply = await dispatcher.call(name, json === undefined ? "{}" : json);
        if (reply.isError) throw new Error(reply.text);
        return reply.text;
      };
    }
    Object.freeze(tools);
    const done = (outcome) => {
      if (dropped > 0) logs.push("[" + dropped + " more log lines left out]");
      return { ...outcome, logs };
    };
    try {
      const value = await program(tools, console);
      if (state.tripped) return done({ ok: false, cpu: true });
      let returned;
      try {
        returned = JSON.stringify(value === undefined ? null : value);
      } catch (err) {
        if (state.tripped) return done({ ok: false, cpu: true });
        return done({ ok: false, error: "The returned value cannot be turned into JSON: " + describe(err) });
      }
      return done({ ok: true, returned: returned === undefined ? "null" : returned });
    } catch (err) {
      if (state.tripped) return done({ ok: false, cpu: true });
      const line = lineOf(err);
      return done({ ok: false, error: describe(err), ...(line ? { line } : {}) });
    }
  }
}

export default { fetch: () => new Response("code mode runner") };
`;

/** The guard module of a written tool's draft: the same step check, reset at each request (draft-tool.ts). */
export const DRAFT_GUARD_MODULE = "guard.js";
export const DRAFT_GUARD_IMPORTS =
  "step as __codeModeStep, reset as __codeModeReset, tripped as __codeModeTripped, LIMIT_MESSAGE as __codeModeLimit";
export const DRAFT_LIMIT_MESSAGE = "CPU limit: the tool ran too long without waiting (an endless loop?) and was stopped";
export const DRAFT_GUARD_SOURCE = `
let steps = 0;
let over = false;
const Fail = Error;
export const LIMIT_MESSAGE = ${JSON.stringify(DRAFT_LIMIT_MESSAGE)};
export function step(count = 1) {
  steps += count;
  if (steps > ${MAX_PROGRAM_STEPS} || over) {
    over = true;
    throw new Fail(LIMIT_MESSAGE);
  }
}
export function reset() {
  steps = 0;
  over = false;
}
export const tripped = () => over;
`;
