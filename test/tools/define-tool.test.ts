import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, type ToolFileRegistry, type ToolReturn } from "../../src/tools/define-tool.ts";
import { describeUnknownFields, PLAIN_TOOL_FIELDS } from "../../src/tools/unknown-fields.ts";
import type { AgentToolResult } from "../../src/core/types.ts";
import { executeDirectly, prepareCall, runToolCall, textOf } from "./support.ts";

const ok = (text: string): AgentToolResult => ({ content: [{ type: "text", text }], details: {}, terminate: false });

function bookingTool(seen: unknown[] = []) {
  return defineTool({
    name: "bookRoom",
    label: "Room Booking",
    description: "Books a room.",
    schema: z.object({
      room: z.string().describe("Room name"),
      people: z.number().int().min(1),
      floor: z.enum(["ground", "first"]).default("ground"),
    }),
    parallelToolExecute: true,
    execute(_id, args) {
      seen.push(args);
      return ok(`${args.room} for ${args.people} on ${args.floor}`);
    },
  });
}

describe("defineTool", () => {
  it("derives a JSON Schema object from the zod schema, without the $schema key", () => {
    const schema = bookingTool().inputSchema;
    expect(schema).not.toHaveProperty("$schema");
    expect(schema.type).toBe("object");
    expect(schema.properties).toMatchObject({
      room: { type: "string", description: "Room name" },
      people: { type: "integer", minimum: 1 },
      floor: { type: "string", enum: ["ground", "first"] },
    });
  });

  it("requires the fields a caller must send, leaving fields with a default optional", () => {
    expect(bookingTool().inputSchema.required).toEqual(["room", "people"]);
  });

  it("passes the other tool fields through", () => {
    const tool = bookingTool();
    expect(tool).toMatchObject({ name: "bookRoom", label: "Room Booking", description: "Books a room.", parallelToolExecute: true });
  });

  it("lets the core reject a call missing a required field, naming the field", async () => {
    const outcome = await prepareCall(bookingTool(), { people: 2 });
    expect(outcome.kind).toBe("immediate");
    if (outcome.kind !== "immediate") return;
    expect(outcome.isError).toBe(true);
    expect(textOf(outcome.result)).toContain("room: required field is missing");
  });

  it("lets the core reject a field of the wrong type, naming the field", async () => {
    const { message } = await runToolCall(bookingTool(), { room: "Blue", people: "two" });
    expect(message.isError).toBe(true);
    expect(textOf(message)).toMatch(/people:/);
  });

  it("never runs execute for a rejected call", async () => {
    const seen: unknown[] = [];
    await runToolCall(bookingTool(seen), { room: "Blue", people: 0 });
    expect(seen).toEqual([]);
  });

  it("gives execute the parsed arguments, defaults applied", async () => {
    const seen: unknown[] = [];
    const { message } = await runToolCall(bookingTool(seen), '{"room":"Blue","people":3}');
    expect(message.isError).toBe(false);
    expect(seen).toEqual([{ room: "Blue", people: 3, floor: "ground" }]);
    expect(textOf(message)).toBe("Blue for 3 on ground");
  });

  it("turns a zod refinement JSON Schema cannot carry into an error result", async () => {
    const tool = defineTool({
      name: "evenOnly",
      label: "Even",
      description: "Takes an even number.",
      schema: z.object({ n: z.number().refine((n) => n % 2 === 0, "must be even") }),
      execute: () => ok("fine"),
    });
    const { message } = await runToolCall(tool, { n: 3 });
    expect(message.isError).toBe(true);
    expect(textOf(message)).toContain("n: must be even");
  });
});

describe("defineTool with the habits of other SDKs", () => {
  const base = { name: "habit", label: "Habit", description: "Has habits.", execute: () => "ok" };

  it("names an unknown field and the field meant (`parameters` for `schema`)", () => {
    const definition = { ...base, parameters: z.object({ q: z.string() }) };
    // @ts-expect-error: tsc names the unknown field too (an object literal may only specify known properties)
    expect(() => defineTool({ ...base, parameters: z.object({ q: z.string() }) })).toThrow(
      "unknown field `parameters`, did you mean `schema`?",
    );
    expect(() => defineTool(definition as never)).toThrow('defineTool("habit"): unknown field `parameters`, did you mean `schema`?');
  });

  it("suggests the nearest field for a typo, and lists the fields when nothing is near", () => {
    expect(() => defineTool({ ...base, schema: z.object({}), descripton: "x" } as never)).toThrow(
      "unknown field `descripton`, did you mean `description`?",
    );
    expect(() => defineTool({ ...base, schema: z.object({}), colour: "red" } as never)).toThrow(
      /unknown field `colour` \(known: name, label, description, schema, execute/,
    );
  });

  it("says what `schema` must be when it is missing", () => {
    expect(() => defineTool(base as never)).toThrow('defineTool("habit"): `schema` must be a zod object schema (z.object({ ... }))');
  });
});

describe("what a defineTool execute may return", () => {
  const returning = (value: ToolReturn | Promise<ToolReturn>) =>
    defineTool({ name: "returns", label: "Returns", description: "Returns a value.", schema: z.object({}), execute: () => value });

  it("a string: one text block, details {}, terminate false", async () => {
    const { message } = await runToolCall(returning("just text"), {});
    expect(message).toMatchObject({ isError: false, content: [{ type: "text", text: "just text" }], details: {} });
    expect((await executeDirectly(returning("just text"), {})).result).toEqual(ok("just text"));
  });

  it("just {content}, from a sync or an async execute: the defaults filled in", async () => {
    const content = [{ type: "text" as const, text: "only content" }];
    expect((await executeDirectly(returning({ content }), {})).result).toEqual(ok("only content"));
    expect((await executeDirectly(returning(Promise.resolve({ content })), {})).result).toEqual(ok("only content"));
  });

  it("keeps details, usage and terminate when given", async () => {
    const usage = { inputTokens: 1, outputTokens: 2, totalTokens: 3 };
    const { result } = await executeDirectly(
      returning({ content: [{ type: "text", text: "t" }], details: { a: 1 }, usage, terminate: true }),
      {},
    );
    expect(result).toEqual({ content: [{ type: "text", text: "t" }], details: { a: 1 }, usage, terminate: true });
  });
});

describe("a defineTool that declares annotations and an output shape", () => {
  const thermometer = (details: Record<string, unknown>) =>
    defineTool({
      name: "thermometer",
      label: "Thermometer",
      description: "Reads the temperature.",
      schema: z.object({}),
      annotations: { readOnlyHint: true, openWorldHint: false },
      output: z.object({ celsius: z.number(), at: z.string().default("now") }),
      execute: () => ({ content: [{ type: "text", text: JSON.stringify(details) }], details }),
    });

  it("carries its annotations, and its output shape as a JSON Schema of what it returns", () => {
    const tool = thermometer({ celsius: 21.5 });
    expect(tool.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(tool.outputSchema).toMatchObject({
      type: "object",
      properties: { celsius: { type: "number" }, at: { type: "string" } },
      required: ["celsius", "at"],
    });
    expect(tool.outputSchema).not.toHaveProperty("$schema");
  });

  it("returns its details parsed by the output shape, defaults applied", async () => {
    expect((await executeDirectly(thermometer({ celsius: 21.5 }), {})).result.details).toEqual({ celsius: 21.5, at: "now" });
  });

  it("fails a call whose details break the promised shape, naming the field", async () => {
    const { message } = await runToolCall(thermometer({ celsius: "warm" }), {});
    expect(message.isError).toBe(true);
    expect(textOf(message)).toContain('Tool "thermometer" returned details that do not match its output schema');
    expect(textOf(message)).toContain("- celsius:");
  });

  it("says what `output` must be when it is not a zod object", () => {
    expect(() =>
      defineTool({
        name: "x",
        label: "X",
        description: "X.",
        schema: z.object({}),
        output: { type: "object" } as never,
        execute: () => "ok",
      }),
    ).toThrow("`output` must be a zod object schema");
  });
});

describe("plain-object tools", () => {
  it("typecheck as written in a tool file: a string or bare {content} result, blocks without `as const`", () => {
    // Not contextually typed, as in a tools/ file that imports nothing: `type: "text"` widens to string.
    const getTool = () => ({
      name: "plain",
      label: "Plain",
      description: "A plain tool.",
      inputSchema: { type: "object", properties: { city: { type: "string" } } },
      execute: (_id: string, args: { city?: string }) =>
        args.city ? `hello ${args.city}` : { content: [{ type: "text", text: "no city" }] },
    });
    const registry = { plain: { getTool } } satisfies ToolFileRegistry;
    expect(Object.keys(registry)).toEqual(["plain"]);
  });

  it("have their unknown fields named, with the field meant", () => {
    expect(describeUnknownFields({ name: "x", parameters: {}, handler: () => "" }, PLAIN_TOOL_FIELDS, "plain")).toEqual([
      "unknown field `parameters`, did you mean `inputSchema`?",
      "unknown field `handler`, did you mean `execute`?",
    ]);
  });
});
