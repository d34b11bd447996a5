import * as z from "zod";
import { describe, expect, it } from "vitest";
import { loadTools, ToolStore } from "../../src/core/tool-store.ts";
import type { AgentTool, ToolExecutionContext } from "../../src/core/types.ts";
import { defineTool } from "../../src/tools/define-tool.ts";
import { bindToolContext, contextFor, withToolContexts, type ToolHost } from "../../src/tools/tool-context.ts";

const HOST_ENV = { OPENAI_API_KEY: "sk-secret", API_TOKEN: "admin", WEATHER_API_BASE_URL: "http://weather.test", TOOL_INDEX: { kv: true } };
const registered: AgentTool[] = [];
const host: ToolHost = {
  sessionId: "s_1",
  env: HOST_ENV,
  capabilities: { registerDraft: (tool) => registered.push(tool) > 0, bundledToolNames: () => ["getTime"] },
};

/** A tool that answers with the context it was given. */
const probe = (declared: Partial<Pick<AgentTool, "env" | "capabilities">>): AgentTool => ({
  name: "probe",
  label: "Probe",
  description: "Shows its context.",
  inputSchema: { type: "object", properties: {} },
  ...declared,
  execute: (_id, _args, _signal, _onPartial, context) => ({
    content: [{ type: "text", text: "ok" }],
    details: { context },
    terminate: false,
  }),
});
const contextSeenBy = async (tool: AgentTool, passed?: ToolExecutionContext) =>
  (await bindToolContext(tool, host).execute("c1", {}, undefined, () => {}, passed)).details.context as ToolExecutionContext;

describe("a tool's context", () => {
  it("holds only the env keys the tool declared", async () => {
    expect((await contextSeenBy(probe({ env: ["WEATHER_API_BASE_URL"] }))).env).toEqual({ WEATHER_API_BASE_URL: "http://weather.test" });
  });

  it("holds no env at all for a tool that declared none, and the session id", async () => {
    expect(await contextSeenBy(probe({}))).toEqual({ sessionId: "s_1", env: {} });
  });

  it("leaves out a declared key the Worker does not have", () => {
    expect(contextFor(probe({ env: ["GEOCODING_API_BASE_URL", "TOOL_INDEX"] }), host).env).toEqual({ TOOL_INDEX: { kv: true } });
  });

  it("never hands out the signing secret, even to a tool that declares it", () => {
    const withSecret: ToolHost = { ...host, env: { ...HOST_ENV, SIGNING_SECRET: "s".repeat(32) } };
    expect(contextFor(probe({ env: ["SIGNING_SECRET", "WEATHER_API_BASE_URL"] }), withSecret).env).toEqual({
      WEATHER_API_BASE_URL: "http://weather.test",
    });
  });

  it("grants registerDraft only to a tool that declared it", () => {
    expect(contextFor(probe({}), host).registerDraft).toBeUndefined();
    expect(contextFor(probe({ capabilities: ["registerDraft"] }), host).registerDraft).toBe(host.capabilities.registerDraft);
  });

  it("grants the session's schedules only to a tool that declared them, and only where the host has them", () => {
    const schedules = { create: () => ({ ok: false as const, message: "no" }), list: () => [], cancel: () => false };
    const withSchedules: ToolHost = { ...host, capabilities: { ...host.capabilities, schedules } };
    expect(contextFor(probe({}), withSchedules).schedules).toBeUndefined();
    expect(contextFor(probe({ capabilities: ["schedules"] }), withSchedules).schedules).toBe(schedules);
    expect(contextFor(probe({ capabilities: ["schedules"] }), host).schedules).toBeUndefined();
  });

  it("ignores whatever context the loop passes: a bound tool sees its declared one", async () => {
    const seen = await contextSeenBy(probe({}), { sessionId: "s_1", env: HOST_ENV });
    expect(seen.env).toEqual({});
  });

  it("is bound for every tool a session loads from the registry", async () => {
    const store = new ToolStore("s_1");
    loadTools(store, withToolContexts({ probe: { getTool: () => probe({ env: ["API_TOKEN"] }) } }, host));
    const result = await store.get("probe")!.execute("c1", {}, undefined, () => {}, { env: HOST_ENV });
    expect((result.details.context as ToolExecutionContext).env).toEqual({ API_TOKEN: "admin" });
  });

  it("is typed by defineTool from the declared keys", async () => {
    const tool = defineTool({
      name: "typed",
      label: "Typed",
      description: "Reads one declared setting.",
      schema: z.object({}),
      env: ["WEATHER_API_BASE_URL"],
      // `context.env.OPENAI_API_KEY` would not compile here: only WEATHER_API_BASE_URL is in the type.
      execute: (_id, _args, _signal, _onPartial, context) => ({
        content: [{ type: "text", text: context?.env.WEATHER_API_BASE_URL ?? "none" }],
        details: {},
        terminate: false,
      }),
    });
    const result = await bindToolContext(tool, host).execute("c1", {}, undefined, () => {});
    expect(result.content).toEqual([{ type: "text", text: "http://weather.test" }]);
    defineTool({
      name: "untyped",
      label: "Untyped",
      description: "Reads an undeclared key.",
      schema: z.object({}),
      env: ["WEATHER_API_BASE_URL"],
      execute: (_id, _args, _signal, _onPartial, context) => ({
        // @ts-expect-error OPENAI_API_KEY was not declared, so it is not part of this tool's context type.
        content: [{ type: "text", text: context?.env.OPENAI_API_KEY ?? "" }],
        details: {},
        terminate: false,
      }),
    });
  });
});
