/**
 * ToolStore, listTools and loadTools: isolation, order, lookup and registry loading.
 */
import { describe, expect, it } from "vitest";
import { ToolStore, listTool, loadTools } from "../../src/core/tool-store.ts";
import type { ToolRegistry } from "../../src/core/tool-store.ts";
import type { AgentTool } from "../../src/core/types.ts";
import { makeTool, textOf } from "./support.ts";

const moduleOf = (tool: AgentTool) => ({ getTool: () => tool });

async function listingOf(tool: AgentTool): Promise<string> {
  return textOf(await tool.execute("call-1", {}, undefined, () => undefined));
}

describe("ToolStore", () => {
  it("keeps each store's tools to itself", () => {
    const a = new ToolStore("a");
    const b = new ToolStore("b");
    a.register(makeTool("onlyInA"));
    expect(a.has("onlyInA")).toBe(true);
    expect(b.has("onlyInA")).toBe(false);
    expect(b.list()).toEqual([]);
  });

  it("lists tools in insertion order, and re-registering a name replaces it in its first position", () => {
    const store = new ToolStore();
    for (const name of ["zeta", "alpha", "mid"]) store.register(makeTool(name));
    const replacement = makeTool("zeta", { description: "newer" });
    store.register(replacement);
    expect(store.names()).toEqual(["zeta", "alpha", "mid"]);
    expect(store.get("zeta")).toBe(replacement);
  });

  it("looks tools up by name in a Map, so get is constant time and returns the registered object", () => {
    const store = new ToolStore();
    const tools = Array.from({ length: 5_000 }, (_, i) => makeTool(`t${i}`));
    for (const t of tools) store.register(t);
    expect(store.tools).toBeInstanceOf(Map);
    expect(store.get("t4999")).toBe(tools[4999]);
    expect(store.get("t0")).toBe(tools[0]);
    expect(store.get("nope")).toBeUndefined();
  });

  it("supports register, get, list and clear", () => {
    const store = new ToolStore();
    const one = makeTool("one");
    const two = makeTool("two");
    store.register(one);
    store.register(two);
    expect(store.get("one")).toBe(one);
    expect(store.list()).toEqual([one, two]);
    store.clear();
    expect(store.list()).toEqual([]);
    expect(store.get("one")).toBeUndefined();
  });

  it("refuses a tool whose name is not an identifier", () => {
    const store = new ToolStore();
    expect(() => store.register(makeTool("bad-name"))).toThrow(/Invalid tool name "bad-name"/);
  });
});

describe("listTools", () => {
  it("lists only the tools of the store it is bound to", async () => {
    const a = new ToolStore("a");
    const b = new ToolStore("b");
    a.register(makeTool("weatherA"));
    b.register(makeTool("timeB"));
    const listing = await listingOf(listTool(a));
    expect(listing).toContain("weatherA");
    expect(listing).not.toContain("timeB");
  });

  it("sees tools registered in its store after it was created", async () => {
    const store = new ToolStore();
    const list = listTool(store);
    store.register(makeTool("lateComer"));
    expect(await listingOf(list)).toContain("- lateComer: lateComer — The lateComer test tool");
  });
});

describe("loadTools", () => {
  it("registers a registry's tools in key order, then listTools", () => {
    const store = new ToolStore();
    const registry: ToolRegistry = {
      getTime: moduleOf(makeTool("getTime")),
      getWeather: moduleOf(makeTool("getWeather")),
      writeTool: moduleOf(makeTool("writeTool")),
    };
    const tools = loadTools(store, registry);
    expect([...tools.keys()]).toEqual(["getTime", "getWeather", "writeTool", "listTools"]);
    expect(store.names()).toEqual(["getTime", "getWeather", "writeTool", "listTools"]);
  });

  it("gives each loaded store a listTools that lists that store's tools only", async () => {
    const a = new ToolStore("a");
    const b = new ToolStore("b");
    loadTools(a, { getTime: moduleOf(makeTool("getTime")) });
    loadTools(b, { getWeather: moduleOf(makeTool("getWeather")) });
    const listing = await listingOf(a.get("listTools")!);
    expect(listing).toContain("getTime");
    expect(listing).toContain("listTools");
    expect(listing).not.toContain("getWeather");
  });

  it("throws naming the module when it has no getTool", () => {
    const registry = { brokenTool: {} } as unknown as ToolRegistry;
    expect(() => loadTools(new ToolStore(), registry)).toThrow(/"brokenTool" does not export getTool\(\)/);
  });

  it("throws naming the module when the tool's name differs from its key", () => {
    const registry: ToolRegistry = { getTime: moduleOf(makeTool("getClock")) };
    expect(() => loadTools(new ToolStore(), registry)).toThrow(/"getTime" returns a tool named "getClock"/);
  });
});
