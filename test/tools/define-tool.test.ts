import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/tools/define-tool.ts";
import type { AgentToolResult } from "../../src/core/types.ts";
import { prepareCall, runToolCall, textOf } from "./support.ts";

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
