import { describe, expect, it } from "vitest";
import { checkInputSchema } from "../../src/core/index.ts";

describe("checkInputSchema", () => {
  it("accepts an object schema whose required names exist", () => {
    expect(checkInputSchema({ type: "object", properties: { q: { type: "string" } }, required: ["q"] })).toEqual([]);
  });

  it("names every structural problem at once", () => {
    expect(checkInputSchema({ type: "string", properties: [], required: "q" })).toEqual([
      'inputSchema.type must be "object", got "string"',
      "inputSchema.properties must be an object",
      "inputSchema.required must be an array of property names",
    ]);
  });

  it("names a required property that is not defined", () => {
    expect(checkInputSchema({ type: "object", properties: {}, required: ["ghost"] })).toEqual([
      'inputSchema.required names "ghost", which is not in properties',
    ]);
  });

  it("rejects a schema the validator cannot compile", () => {
    const [problem] = checkInputSchema({ type: "object", properties: { when: { type: "moment" } } });
    expect(problem).toMatch(/^inputSchema is not a JSON Schema the runtime can validate with/);
  });
});
