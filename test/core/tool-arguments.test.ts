/**
 * Tool-call arguments through the pipeline: JSON text parsing, prepareArguments, whole-schema
 * validation with field paths, and a tool's own validateRequiredArgs replacing the default.
 */
import { describe, expect, it } from "vitest";
import type { AgentTool, ToolArguments } from "../../src/core/types.ts";
import { makeTool, runOne, textResult } from "./support.ts";

/** A weather tool whose execute echoes the arguments it got, so tests can see what passed validation. */
function weatherTool(overrides: Partial<AgentTool> = {}): AgentTool {
  return makeTool("getWeather", {
    inputSchema: {
      type: "object",
      properties: {
        location: {
          type: "object",
          properties: { lat: { type: "number" }, lon: { type: "number" } },
          required: ["lat", "lon"],
        },
        unit: { type: "string", enum: ["celsius", "fahrenheit"] },
        tags: { type: "array", items: { type: "string" } },
      },
      required: ["location"],
      additionalProperties: false,
    },
    execute: (_id, args) => textResult(`ran with ${JSON.stringify(args)}`),
    ...overrides,
  });
}

const valid: ToolArguments = { location: { lat: 52.5, lon: 13.4 } };

describe("argument parsing", () => {
  it("accepts arguments sent as JSON text", async () => {
    const { message, text } = await runOne(weatherTool(), JSON.stringify(valid));
    expect(message.isError).toBe(false);
    expect(text).toBe(`ran with ${JSON.stringify(valid)}`);
  });

  it("turns arguments that are not JSON into an error result naming the problem", async () => {
    const { message, text } = await runOne(weatherTool(), "{location: nope");
    expect(message.isError).toBe(true);
    expect(text).toMatch(/^Invalid JSON in arguments for tool "getWeather": /);
  });

  it("rejects JSON arguments that are not an object", async () => {
    const { message, text } = await runOne(weatherTool(), "[1, 2]");
    expect(message.isError).toBe(true);
    expect(text).toBe('Arguments for tool "getWeather" must be a JSON object');
  });
});

describe("prepareArguments", () => {
  it("runs before validation, so a string it coerces to a number passes", async () => {
    const tool = makeTool("square", {
      inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      prepareArguments: (args) => ({ ...args, n: Number(args.n) }),
      execute: (_id, args) => textResult(String((args.n as number) ** 2)),
    });
    const { message, text } = await runOne(tool, { n: "7" });
    expect(message.isError).toBe(false);
    expect(text).toBe("49");
  });
});

describe("schema validation", () => {
  it("names the nested field path of a type violation", async () => {
    const { message, text } = await runOne(weatherTool(), { location: { lat: "north", lon: 13.4 } });
    expect(message.isError).toBe(true);
    expect(text).toContain('Invalid arguments for tool "getWeather"');
    expect(text).toMatch(/- location\.lat: .*expected number/);
  });

  it("reports a value outside an enum", async () => {
    const { message, text } = await runOne(weatherTool(), { ...valid, unit: "kelvin" });
    expect(message.isError).toBe(true);
    expect(text).toMatch(/- unit: .*"celsius"\|"fahrenheit"/);
  });

  it("rejects a property the schema does not allow", async () => {
    const { message, text } = await runOne(weatherTool(), { ...valid, altitude: 30 });
    expect(message.isError).toBe(true);
    expect(text).toContain("- altitude: not allowed by the schema");
  });

  it("checks the type of each array item", async () => {
    const { message, text } = await runOne(weatherTool(), { ...valid, tags: ["ok", 2] });
    expect(message.isError).toBe(true);
    expect(text).toMatch(/- tags\[1\]: .*expected string/);
  });

  it("names a missing required field, nested ones by path", async () => {
    const top = await runOne(weatherTool(), {});
    expect(top.message.isError).toBe(true);
    expect(top.text).toContain("- location: required field is missing");
    const nested = await runOne(weatherTool(), { location: { lat: 1 } });
    expect(nested.text).toContain("- location.lon: required field is missing");
  });

  it("does not run execute when validation fails", async () => {
    let ran = false;
    const tool = weatherTool({
      execute: () => {
        ran = true;
        return textResult("ran");
      },
    });
    await runOne(tool, {});
    expect(ran).toBe(false);
  });
});

describe("custom validateRequiredArgs", () => {
  it("replaces the schema check: a schema violation passes when it returns undefined", async () => {
    const tool = weatherTool({ validateRequiredArgs: () => undefined });
    const { message, text } = await runOne(tool, { location: "somewhere" });
    expect(message.isError).toBe(false);
    expect(text).toBe('ran with {"location":"somewhere"}');
  });

  it("makes the string it returns the error result", async () => {
    const tool = weatherTool({ validateRequiredArgs: () => "location must be a city name" });
    const { message, text } = await runOne(tool, valid);
    expect(message.isError).toBe(true);
    expect(text).toBe("location must be a city name");
  });
});
