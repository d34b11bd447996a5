/**
 * Our MCP client (src/mcp/mcp-connection.ts, the code sessions use) as a command the official conformance
 * suite starts: `node … scripts/mcp-conformance-client.ts <server-url>`. It connects, lists the tools, calls
 * each once with arguments made from its input schema, accepts every elicitation with the requested
 * schema's defaults (a stand-in for the human, who answers through the session's route), and exits 0.
 * Run by test/mcp/conformance/conformance.test.ts; the suite judges what it saw on the wire.
 */
import { McpConnection } from "../src/mcp/mcp-connection.ts";

/** A value of each property's type: enough for a conformance tool, never a real call. */
function argumentsFor(schema: { properties?: Record<string, { type?: unknown; enum?: unknown[]; default?: unknown }> }): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    if (prop.default !== undefined) args[name] = prop.default;
    else if (Array.isArray(prop.enum) && prop.enum.length > 0) args[name] = prop.enum[0];
    else if (prop.type === "number" || prop.type === "integer") args[name] = Object.keys(args).length + 2;
    else if (prop.type === "boolean") args[name] = true;
    else if (prop.type === "array") args[name] = [];
    else if (prop.type === "object") args[name] = {};
    else args[name] = "conformance";
  }
  return args;
}

async function main(): Promise<void> {
  const url = process.argv.at(-1);
  if (!url || !/^https?:\/\//.test(url)) throw new Error("usage: mcp-conformance-client.ts <server-url>");
  // Empty content: the connection declares applyDefaults, so the SDK fills in each field's default.
  const connection = new McpConnection({ name: "conformance", url }, () => undefined, undefined, async () => ({ action: "accept", content: {} }));
  try {
    const tools = await connection.listTools();
    for (const tool of tools) {
      const result = await connection.callTool(tool.name, argumentsFor(tool.inputSchema as Parameters<typeof argumentsFor>[0]), {});
      console.log(`${tool.name}: ${JSON.stringify(result.content).slice(0, 500)}`);
    }
  } finally {
    await connection.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
