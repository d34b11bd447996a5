import { describe, expect, it } from "vitest";
import { loadTools, ToolStore } from "../../src/core/tool-store.ts";
// Written by `npm run generate` (run by `npm test` and `npm run typecheck` first).
import { toolRegistry } from "../../src/tools/registry.generated.ts";

describe("the generated registry of bundled tools", () => {
  it("lists the bundled tools in sorted order", () => {
    expect(Object.keys(toolRegistry)).toEqual(["cancelSchedule", "getTime", "getWeather", "listSchedules", "schedule", "writeTool"]);
  });

  it("loads into a tool store, followed by listTools", () => {
    const store = new ToolStore("test");
    loadTools(store, toolRegistry);
    expect(store.names()).toEqual(["cancelSchedule", "getTime", "getWeather", "listSchedules", "schedule", "writeTool", "listTools"]);
  });
});
