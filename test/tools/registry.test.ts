/**
 * The generated registry mirrors tools/: one entry per tool file, in sorted order. Compared with the
 * folder itself, not a list of names, so a user's own tools never break this test.
 */
import { readdir } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { loadTools, ToolStore } from "../../src/core/tool-store.ts";
import { bundledRegistry, sessionRegistry } from "../../src/tools/catalog.ts";
// Written by `npm run generate:code` (run before `npm test`, `npm run test:unit` and `npm start`).
import { toolRegistry } from "../../src/tools/registry.generated.ts";

const toolFileNames = async () =>
  (await readdir(new URL("../../tools/", import.meta.url)))
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
    .map((f) => f.slice(0, -3))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

describe("the generated registry of bundled tools", () => {
  it("has one entry per file of tools/, in sorted order", async () => {
    expect(Object.keys(toolRegistry)).toEqual(await toolFileNames());
  });

  it("loads into a tool store, followed by listTools", async () => {
    const store = new ToolStore("test");
    loadTools(store, bundledRegistry());
    expect(store.names()).toEqual([...(await toolFileNames()), "listTools"]);
  });
});

describe("the registry a session loads", () => {
  it('leaves writeTool out unless WRITE_TOOL_ENABLED is "true"', () => {
    expect(Object.keys(sessionRegistry({}))).not.toContain("writeTool");
    expect(Object.keys(sessionRegistry({ WRITE_TOOL_ENABLED: "false" }))).not.toContain("writeTool");
    expect(Object.keys(sessionRegistry({ WRITE_TOOL_ENABLED: "true" }))).toContain("writeTool");
  });

  it("keeps every other bundled tool whatever the settings", () => {
    expect(Object.keys(sessionRegistry({}))).toEqual(Object.keys(bundledRegistry()).filter((n) => n !== "writeTool"));
  });
});
