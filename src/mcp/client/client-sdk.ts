/**
 * The MCP SDK's client side: the Client, both HTTP transports and the eval-free schema validator.
 * mcp-connection.ts imports this module on its first connection, so an isolate whose requests reach no
 * MCP server never initialises it (the SDK builds its protocol's zod schemas at load: ~13 of ~31 ms
 * of start-up CPU with the server's, in a V8 profile of loading the bundle).
 */
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
export { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
export { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
export { UnauthorizedError, auth, extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
export { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
export { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
