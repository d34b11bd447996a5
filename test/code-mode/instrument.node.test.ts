import { describe, expect, it } from "vitest";
import { instrumentBody, instrumentProgram } from "../../src/code-mode/instrument.ts";
import { typeOfSchema } from "../../src/code-mode/signatures.ts";

/** Runs an instrumented body in this V8 with a small step budget; answers what it returned or threw. */
async function runWithBudget(code: string, budget = 10_000): Promise<{ value?: unknown; error?: string; steps: number }> {
  const body = await instrumentBody(code, { async: true, params: "" });
  if (!body.ok) throw new Error(body.error);
  const state = { steps: 0, over: false };
  const step = (n = 1) => {
    state.steps += n;
    if (state.steps > budget || state.over) {
      state.over = true;
      throw new Error("CPU limit");
    }
  };
  const run = new Function("__codeModeStep", `return (async function () {\n${body.body}\n})();`) as (s: typeof step) => Promise<unknown>;
  try {
    return { value: await run(step), steps: state.steps };
  } catch (err) {
    return { error: (err as Error).message, steps: state.steps };
  }
}

describe("the CPU-limit instrumentation", () => {
  it("keeps every line where it was", async () => {
    const code = "const a = [1, 2, 3];\nlet s = 0;\nfor (const x of a) s += x;\nwhile (s < 100) s *= 2;\nreturn a.map((x) => x * s);";
    const body = await instrumentBody(code, { async: true, params: "" });
    expect(body.ok && body.body.split("\n").length).toBe(code.split("\n").length);
  });

  it("stops endless loops, recursion and loops whose error is caught, and keeps answering the limit", async () => {
    expect((await runWithBudget("while (true) {}")).error).toBe("CPU limit");
    expect((await runWithBudget("for (;;) { try { for (;;); } catch {} }")).error).toBe("CPU limit");
    expect((await runWithBudget("const f = () => f(); return f();")).error).toMatch(/CPU limit|call stack/);
    expect((await runWithBudget("do {} while (true)")).error).toBe("CPU limit");
    expect((await runWithBudget("label: for (;;) continue label;")).error).toBe("CPU limit");
  });

  it("leaves a program that finishes alone", async () => {
    expect(await runWithBudget("let s = 0;\nfor (let i = 0; i < 100; i++) s += i;\nreturn [1, 2].map((x) => x + s);")).toMatchObject({
      value: [4951, 4952],
    });
  });

  it("counts a caught exception as many steps", async () => {
    const { steps } = await runWithBudget("try { throw 1; } catch {}\nreturn 0;", 1e9);
    expect(steps).toBeGreaterThan(1000);
  });

  it("refuses text that closes the function early, and names reserved names", async () => {
    expect(await instrumentProgram("return 1; }); (async function () {")).toMatchObject({ ok: false });
    expect(await instrumentProgram("let x = 1;\n__codeModeStep = () => {};")).toMatchObject({ ok: false, line: 2 });
  });

  it("names the line and column of a syntax error", async () => {
    expect(await instrumentBody("let a = 1;\nlet = = 2;", { async: false, params: "args" })).toMatchObject({ ok: false, line: 2 });
  });
});

describe("signatures from input schemas", () => {
  it("turns the keywords tools use into TypeScript", () => {
    expect(
      typeOfSchema({
        type: "object",
        properties: {
          city: { type: "string" },
          days: { type: "integer" },
          unit: { enum: ["c", "f"] },
          tags: { type: "array", items: { type: ["string", "null"] } },
          "odd-key": { anyOf: [{ type: "number" }, { type: "boolean" }] },
        },
        required: ["city"],
      }),
    ).toBe('{ city: string; days?: number; unit?: "c" | "f"; tags?: (string | null)[]; "odd-key"?: number | boolean }');
    expect(typeOfSchema({ type: "object", properties: {}, additionalProperties: false })).toBe("{}");
    expect(typeOfSchema({ type: "object" })).toBe("Record<string, unknown>");
  });
});
