import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { TOOL_NAME_PATTERN, validateToolArguments } from "../../src/core/index.ts";
import { createMcpTool, mcpToolName, mcpToolOrigin, toAgentToolResult } from "../../src/mcp/client/mcp-tool.ts";

const server = { name: "srv", url: "https://example.com/mcp" };
const noCall = async () => ({ content: [] });

const conditional: Tool = {
  name: "area",
  inputSchema: {
    type: "object",
    properties: {
      shape: {
        oneOf: [
          { type: "object", properties: { kind: { const: "circle" }, r: { type: "number" } }, required: ["kind", "r"] },
          { type: "object", properties: { kind: { const: "square" } }, required: ["kind"] },
        ],
      },
      unit: { enum: ["percent", "absolute"] },
      scale: { type: "number" },
    },
    required: ["shape"],
    if: { properties: { unit: { const: "percent" } }, required: ["unit"] },
    then: { properties: { scale: { maximum: 100 } } },
  },
};

describe("an MCP tool as an AgentTool", () => {
  it("is named <server>_<tool>, sanitised to the tool-name pattern and at most 64 characters", () => {
    expect(mcpToolName("srv", "get-weather.v2")).toBe("srv_get_weather_v2");
    expect(mcpToolName("my-srv", "x")).toBe("my_srv_x");
    const long = mcpToolName("srv", "a".repeat(100));
    expect(long).toHaveLength(64);
    expect(TOOL_NAME_PATTERN.test(mcpToolName("srv", "ünïcode tool"))).toBe(true);
  });

  it("remembers which server and tool it came from", () => {
    const tool = createMcpTool(server, { name: "echo", inputSchema: { type: "object" } }, noCall);
    expect(mcpToolOrigin(tool)).toEqual({ server: "srv", tool: "echo" });
    expect(mcpToolOrigin({ ...tool })).toBeUndefined();
  });

  it("validates an if/then schema, which zod cannot express, with the draft 2020-12 validator", () => {
    const tool = createMcpTool(server, conditional, noCall);
    expect(tool.validateRequiredArgs).toBeDefined();
    expect(validateToolArguments(tool, { shape: { kind: "circle", r: 1 }, unit: "percent", scale: 50 })).toBeUndefined();
    expect(validateToolArguments(tool, { shape: { kind: "circle", r: 1 }, unit: "absolute", scale: 500 })).toBeUndefined();
    const tooBig = validateToolArguments(tool, { shape: { kind: "circle", r: 1 }, unit: "percent", scale: 150 });
    expect(tooBig).toContain('Invalid arguments for tool "srv_area"');
    expect(tooBig).toMatch(/- scale: .*100/);
    expect(validateToolArguments(tool, { shape: { kind: "circle" } })).toContain("shape");
  });

  it("keeps the core's zod validation for schemas zod accepts", () => {
    const tool = createMcpTool(
      server,
      { name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
      noCall,
    );
    expect(tool.validateRequiredArgs).toBeUndefined();
    expect(validateToolArguments(tool, {})).toContain("text: required field is missing");
  });

  it("runs concurrently and after restarts only when the server declares the tool read-only", () => {
    const plain = createMcpTool(server, { name: "w", inputSchema: { type: "object" } }, noCall);
    const readOnly = createMcpTool(server, { name: "r", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }, noCall);
    expect([plain.parallelToolExecute, plain.idempotent]).toEqual([false, false]);
    expect([readOnly.parallelToolExecute, readOnly.idempotent]).toEqual([true, true]);
  });

  it("needs approval when its server requires it for all tools or for this one", () => {
    const def = { name: "w", inputSchema: { type: "object" as const } };
    expect(createMcpTool({ ...server, requireApproval: true }, def, noCall).requiresApproval).toBe(true);
    expect(createMcpTool({ ...server, requireApproval: ["w"] }, def, noCall).requiresApproval).toBe(true);
    expect(createMcpTool({ ...server, requireApproval: ["other"] }, def, noCall).requiresApproval).toBe(false);
  });

  it("throws the server's text when the result is marked isError, so the pipeline records an error result", async () => {
    const tool = createMcpTool(server, { name: "f", inputSchema: { type: "object" } }, async () => ({
      content: [{ type: "text", text: "no such city" }],
      isError: true,
    }));
    await expect(tool.execute("c1", {}, undefined, () => undefined)).rejects.toThrow("no such city");
  });

  it("turns progress notifications into partial results", async () => {
    const seen: unknown[] = [];
    const tool = createMcpTool(server, { name: "p", inputSchema: { type: "object" } }, async (_name, _args, options) => {
      options.onProgress?.({ progress: 1, total: 2 });
      return { content: [{ type: "text", text: "ok" }] };
    });
    await tool.execute("c1", {}, undefined, (partial) => seen.push(partial));
    expect(seen).toEqual([{ progress: 1, total: 2 }]);
  });

  it("passes every MCP content kind through unchanged, keeping structured content in details", () => {
    const result = toAgentToolResult({
      content: [
        { type: "text", text: "t" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "resource", resource: { uri: "file:///a.txt", text: "file text" } },
        { type: "resource", resource: { uri: "file:///b.bin", blob: "AAAA", mimeType: "application/octet-stream" } },
        { type: "resource_link", uri: "file:///c", name: "c" },
      ],
      structuredContent: { a: 1 },
    });
    expect(result.content).toEqual([
      { type: "text", text: "t" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
      { type: "audio", data: "AAAA", mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "file:///a.txt", text: "file text" } },
      { type: "resource", resource: { uri: "file:///b.bin", blob: "AAAA", mimeType: "application/octet-stream" } },
      { type: "resource_link", uri: "file:///c", name: "c" },
    ]);
    expect(result.details).toEqual({ structuredContent: { a: 1 } });
  });

  it("shows structured content as text when the server sent no content blocks", () => {
    expect(toAgentToolResult({ content: [], structuredContent: { n: 3 } }).content).toEqual([{ type: "text", text: '{"n":3}' }]);
  });
});
