/**
 * vitest globalSetup for the MCP OAuth workers project: starts the OAuth-protected MCP server
 * (oauth-mcp-server.ts) and hands the Worker an MCP_SERVERS naming it and an MCP_ALLOWED_URLS admitting
 * its unauthenticated /open/ servers and the OAuth one itself (for sessions holding their own tokens); the tests get its base URL (`inject("oauthMcpUrl")`).
 */
import type { TestProject } from "vitest/node";
import { startOAuthMcpServer } from "./oauth-mcp-server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    oauthMcpUrl: string;
    oauthMcpServers: string;
    oauthAllowedUrls: string;
  }
}

export default async function setup(project: TestProject) {
  const server = await startOAuthMcpServer();
  project.provide("oauthMcpUrl", server.url);
  project.provide("oauthMcpServers", JSON.stringify([{ name: "secure", url: `${server.url}/mcp` }]));
  project.provide("oauthAllowedUrls", `${server.url}/open/, ${server.url}/mcp`);
  return () => server.close();
}
