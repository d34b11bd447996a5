/**
 * vitest globalSetup for the MCP workers project: starts the mock MCP server on 127.0.0.1 and hands the
 * Worker an MCP_SERVERS value naming it three ways (Streamable HTTP, legacy HTTP+SSE, and a dead port),
 * and the tests its control URL (`inject("mcpUrl")`).
 */
import type { TestProject } from "vitest/node";
import { startElicitingMcpServer } from "./eliciting-mcp-server.ts";
import { startMockMcpServer } from "./mock-mcp-server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    mcpUrl: string;
    mcpServers: string;
    askerUrl: string;
  }
}

/** A port nothing listens on: connecting is refused at once. */
const DEAD_URL = "http://127.0.0.1:9/mcp";

export default async function setup(project: TestProject) {
  const server = await startMockMcpServer();
  const asker = await startElicitingMcpServer();
  project.provide("mcpUrl", server.url);
  project.provide("askerUrl", asker.url);
  project.provide(
    "mcpServers",
    JSON.stringify([
      { name: "mock", url: `${server.url}/mcp`, headers: { "x-test-token": "secret-1" } },
      { name: "slow", url: `${server.url}/mcp`, timeoutMs: 400 },
      { name: "legacy", url: `${server.url}/sse` },
      { name: "gated", url: `${server.url}/mcp`, requireApproval: true },
      { name: "dead", url: DEAD_URL },
      { name: "asker", url: `${asker.url}/mcp` },
    ]),
  );
  return async () => {
    await server.close();
    await asker.close();
  };
}
