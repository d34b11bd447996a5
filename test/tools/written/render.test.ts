import { transform } from "esbuild";
import { describe, expect, it } from "vitest";
import type { AgentTool } from "../../../src/core/types.ts";
import { renderDraftModule, renderToolSource, WRITTEN_TOOL_MARKER } from "../../../src/tools/written/render.ts";
import type { WrittenToolSpec } from "../../../src/tools/written/spec.ts";

const spec = (overrides: Partial<WrittenToolSpec> = {}): WrittenToolSpec => ({
  name: "addNumbers",
  label: "Add Numbers",
  description: "Adds a and b.",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  executeCode: "return `sum: ${args.a + args.b}`;",
  parallel: false,
  ...overrides,
});
const meta = { version: 3, author: { sessionId: "s-1", toolCallId: "call-1" }, writtenAt: "2026-11-29T12:00:00.000Z" };

/** Loads a rendered module the way the redeploy does: types stripped, then imported as ESM. */
async function importModule(code: string, loader: "ts" | "js"): Promise<Record<string, unknown>> {
  const { code: js } = await transform(code, { loader, format: "esm" });
  return import(`data:text/javascript;base64,${Buffer.from(js).toString("base64")}`) as Promise<Record<string, unknown>>;
}
const toolOf = async (s: WrittenToolSpec): Promise<AgentTool> =>
  ((await importModule(renderToolSource(s, meta).code, "ts")).getTool as () => AgentTool)();

describe("the rendered tool file", () => {
  it("starts with the written-tool marker and names its version and author", () => {
    const { code } = renderToolSource(spec(), meta);
    expect(code.split("\n")[0]).toBe(`${WRITTEN_TOOL_MARKER}: addNumbers v3. Review it before deploying; \`npm run redeploy\` ships it.`);
    expect(code).toContain("(session s-1, call call-1, 2026-11-29T12:00:00.000Z)");
  });

  it("imports nothing at run time", () => {
    const imports = renderToolSource(spec(), meta)
      .code.split("\n")
      .filter((l) => l.startsWith("import "));
    expect(imports).toEqual([
      'import type { AgentTool, AgentToolResult, OnPartialResult, ToolArguments, ToolExecutionContext } from "../src/core/types.ts";',
    ]);
  });

  it("exports getTool() returning the spec's tool", async () => {
    const tool = await toolOf(spec({ parallel: true }));
    expect(tool).toMatchObject({
      name: "addNumbers",
      label: "Add Numbers",
      description: "Adds a and b.",
      inputSchema: spec().inputSchema,
      parallelToolExecute: true,
    });
    expect(tool.prepareArguments).toBeUndefined();
    expect(tool.validateRequiredArgs).toBeUndefined();
  });

  it("turns a returned string into a text result", async () => {
    const tool = await toolOf(spec());
    expect(await tool.execute("c", { a: 2, b: 3 }, undefined, () => {})).toEqual({
      content: [{ type: "text", text: "sum: 5" }],
      details: {},
      terminate: false,
    });
  });

  it("sends other returned values as JSON and passes result-shaped objects through", async () => {
    const json = await toolOf(spec({ executeCode: "return { sum: args.a + args.b };" }));
    expect((await json.execute("c", { a: 1, b: 1 }, undefined, () => {})).content).toEqual([{ type: "text", text: '{"sum":2}' }]);
    const shaped = await toolOf(spec({ executeCode: "return { content: [{ type: 'text', text: 'hi' }], details: { n: 1 } };" }));
    expect(await shaped.execute("c", {}, undefined, () => {})).toEqual({
      content: [{ type: "text", text: "hi" }],
      details: { n: 1 },
      terminate: false,
    });
  });

  it("gives the code a context with the session and call ids but no host bindings", async () => {
    const tool = await toolOf(spec({ executeCode: "return context;" }));
    const result = await tool.execute("call-9", {}, undefined, () => {}, { sessionId: "s-9", env: { OPENAI_API_KEY: "secret" } });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({ sessionId: "s-9", toolCallId: "call-9", env: {} });
  });

  it("wires prepareCode and validateCode to the contract's hooks", async () => {
    const tool = await toolOf(
      spec({ prepareCode: "return { ...args, a: Number(args.a) };", validateCode: "if (args.a < 0) return 'a must not be negative';" }),
    );
    expect(tool.prepareArguments?.({ a: "4", b: 1 })).toEqual({ a: 4, b: 1 });
    expect(tool.validateRequiredArgs?.({ a: -1, b: 1 })).toBe("a must not be negative");
    expect(tool.validateRequiredArgs?.({ a: 1, b: 1 })).toBeUndefined();
  });

  it("places each code body verbatim and reports the line it starts on", () => {
    const executeCode = "const s = `line one\n  line two`;\nreturn s;";
    const { code, lines } = renderToolSource(spec({ executeCode }), meta);
    const start = lines.executeCode!;
    expect(
      code
        .split("\n")
        .slice(start - 1, start + 2)
        .join("\n"),
    ).toBe(executeCode);
  });
});

describe("the draft module", () => {
  type Reply = { ok: boolean; result?: { content: { text: string }[] }; [key: string]: unknown };
  const call = async (s: WrittenToolSpec, body: Record<string, unknown>, env: Record<string, unknown> = {}): Promise<Reply> => {
    const mod = (await importModule(renderDraftModule(s).code, "js")).default as { fetch(r: Request, e: unknown): Promise<Response> };
    const response = await mod.fetch(new Request("https://draft.invalid/", { method: "POST", body: JSON.stringify(body) }), env);
    return (await response.json()) as Reply;
  };

  it("answers a probe with the tool's name", async () => {
    expect(await call(spec(), { phase: "probe" })).toEqual({ ok: true, name: "addNumbers" });
  });

  it("executes the tool and returns its result with the partial results it collected", async () => {
    const s = spec({ executeCode: "onPartialResult({ step: 1 });\nonPartialResult({ step: 2 });\nreturn 'done';" });
    expect(await call(s, { phase: "execute", toolCallId: "c1", args: {} })).toEqual({
      ok: true,
      result: { content: [{ type: "text", text: "done" }], details: {}, terminate: false },
      partials: [{ step: 1 }, { step: 2 }],
    });
  });

  it("reports a throw as an error with the partial results sent before it", async () => {
    const s = spec({ executeCode: "onPartialResult('half');\nthrow new Error('no luck');" });
    expect(await call(s, { phase: "execute", toolCallId: "c1", args: {} })).toEqual({ ok: false, error: "no luck", partials: ["half"] });
  });

  it("gives the code no bindings even when its isolate has some", async () => {
    const s = spec({ executeCode: "return Object.keys(context.env);" });
    const reply = await call(s, { phase: "execute", toolCallId: "c1", args: {} }, { SECRET: "x" });
    expect(reply.result?.content[0]?.text).toBe("[]");
  });

  it("prepares then validates arguments in the prepare phase", async () => {
    const s = spec({ prepareCode: "return { a: Number(args.a) };", validateCode: "if (args.a > 10) return 'too big';" });
    expect(await call(s, { phase: "prepare", args: { a: "3" } })).toEqual({ ok: true, args: { a: 3 } });
    expect(await call(s, { phase: "prepare", args: { a: "30" } })).toEqual({ ok: true, args: { a: 30 }, problem: "too big" });
  });
});
