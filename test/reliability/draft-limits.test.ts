/**
 * What a draft (a written tool in its Worker Loader isolate) can make the host do: read a bounded reply,
 * replay a bounded number of bounded partial results, and never run the draft's regular expressions in
 * the session's isolate, so a catastrophic pattern costs only the draft. (Locally every isolate shares
 * one thread, so the separation shows in who answers, not in timing.)
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentToolResult, JsonSchema } from "../../src/core/types.ts";
import { createDraftTool, MAX_DRAFT_REPLY_BYTES, MAX_PARTIAL_BYTES, MAX_REPLAYED_PARTIALS } from "../../src/tools/written/draft-tool.ts";
import type { WrittenToolSpec } from "../../src/tools/written/spec.ts";
import { checkWriteToolInput } from "../../src/tools/written/checks.ts";

const loader = (env as unknown as { LOADER: WorkerLoader }).LOADER;

const spec = (executeCode: string, inputSchema: JsonSchema = { type: "object", properties: {} }): WrittenToolSpec => ({
  name: `limits_${crypto.randomUUID().replace(/-/g, "").slice(0, 8)}`,
  label: "Limits",
  description: "Tests the host's limits.",
  inputSchema,
  executeCode,
  parallel: false,
});

async function run(s: WrittenToolSpec, args: Record<string, unknown> = {}, signal?: AbortSignal) {
  const tool = createDraftTool(loader, s, "s_limits");
  const partials: unknown[] = [];
  // As the pipeline does: the tool's own argument check first, then execute.
  const problem = tool.validateRequiredArgs?.(args);
  if (problem) return { ok: false as const, error: problem, partials };
  try {
    const result: AgentToolResult = await tool.execute("call_1", args, signal, (p) => partials.push(p), { sessionId: "s_limits", env: {} });
    return { ok: true as const, result, partials };
  } catch (err) {
    return { ok: false as const, error: err instanceof Error ? err.message : String(err), partials };
  }
}

const evilSchema: JsonSchema = { type: "object", properties: { word: { type: "string", pattern: "^(a+)+$" } }, required: ["word"] };

describe("limits on what a draft sends back", () => {
  it("refuses a reply larger than the host reads", async () => {
    const outcome = await run(spec(`return "x".repeat(${MAX_DRAFT_REPLY_BYTES + 10});`));
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? "" : outcome.error).toMatch(new RegExp(`answered more than ${MAX_DRAFT_REPLY_BYTES} bytes`));
  });

  it("replays at most a bounded number of partial results, each bounded in bytes", async () => {
    const outcome = await run(
      spec(`for (let i = 0; i < 60; i++) onPartialResult(i === 0 ? "y".repeat(${MAX_PARTIAL_BYTES * 2}) : { i }); return "done";`),
    );
    expect(outcome.ok).toBe(true);
    expect(outcome.partials).toHaveLength(MAX_REPLAYED_PARTIALS + 1);
    expect(outcome.partials[0]).toEqual({ note: expect.stringMatching(/left out \(the limit is 16384\)/) });
    expect(outcome.partials[1]).toEqual({ i: 1 });
    expect(outcome.partials.at(-1)).toEqual({ note: `${60 - MAX_REPLAYED_PARTIALS} more partial results were left out` });
  });
});

describe("a draft's CPU limit, which holds under local workerd too", () => {
  it("stops an endless loop, even one whose error the draft catches, and names the limit", async () => {
    const outcome = await run(spec("for (;;) { try { while (true) {} } catch (e) {} }"));
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? "" : outcome.error).toMatch(/^CPU limit/);
    const caught = await run(spec("try { while (true) {} } catch (e) { return 'swallowed'; }"));
    expect(caught.ok ? "" : caught.error).toMatch(/^CPU limit/);
  });

  it("starts each call with a fresh budget, so the same draft answers again", async () => {
    const s = spec("if (args.spin) { while (true) {} } let n = 0; for (let i = 0; i < 1000; i++) n += i; return String(n);", {
      type: "object",
      properties: { spin: { type: "boolean" } },
    });
    expect((await run(s, { spin: true })).ok).toBe(false);
    const again = await run(s, {});
    expect(again.ok ? again.result.content : again.error).toEqual([{ type: "text", text: "499500" }]);
  });

  it("refuses code that names the guard", async () => {
    const outcome = await run(spec("__codeModeReset(); return 'reset';"));
    expect(outcome.ok ? "" : outcome.error).toMatch(/reserved for the CPU limit/);
  });
});

describe("a written schema's patterns", () => {
  it("are enforced for drafts by the draft itself, never by the session's validator", async () => {
    // The session's own schema validation would answer "Invalid arguments for tool …"; this answer
    // comes from the draft's isolate, where a catastrophic pattern costs only the draft's CPU limit.
    const s = spec("return `ok ${args.word}`;", evilSchema);
    expect(await run(s, { word: "aaa" })).toMatchObject({ ok: true });
    const refused = await run(s, { word: "aab" });
    expect(refused.ok ? "" : refused.error).toBe("Invalid arguments: word must match the pattern ^(a+)+$");
  });

  it("are refused by writeTool where only one of the two walks would reach them", () => {
    const base = { name: "patterned", label: "L", description: "D", executeCode: "return 1;" };
    const anyOf = { type: "object", properties: { a: { anyOf: [{ type: "string", pattern: "^x" }, { type: "number" }] } } };
    const props = { type: "object", properties: {}, patternProperties: { "^x": { type: "string" } } };
    const ok = { type: "object", properties: { a: { type: "array", items: { type: "string", pattern: "^x" } } } };
    const problems = (inputSchema: Record<string, unknown>) => {
      const result = checkWriteToolInput({ ...base, inputSchema }, { bundled: [], written: [] });
      return result.ok ? [] : result.problems;
    };
    expect(problems(anyOf)).toEqual([
      "inputSchema.properties.a.anyOf[0]: a pattern is allowed only under properties, items, prefixItems and allOf",
    ]);
    expect(problems(props)).toEqual(["inputSchema: patternProperties is not supported in written tools; use properties"]);
    expect(problems(ok)).toEqual([]);
  });
});
