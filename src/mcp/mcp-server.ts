/**
 * The Worker's own tools as an MCP server at /mcp: the bundled tools (deployed written tools are bundled
 * after their redeploy) over the SDK's web-standard Streamable HTTP transport, stateless (a fresh server
 * per request, so any isolate can answer). Each tools/call runs through the core pipeline
 * (served-tool-call.ts); partial results become progress notifications. The router checks API_TOKEN.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { ToolStore, loadTools, type AgentToolResult } from "../core/index.ts";
import { bundledRegistry } from "../tools/catalog.ts";
import { withToolContexts } from "../tools/tool-context.ts";
import { runServedToolCall } from "./served-tool-call.ts";

/** Progress messages carry a partial result as text, cut to this length. */
const MAX_PROGRESS_MESSAGE_CHARS = 2_000;

export const MCP_SERVER_INFO = { name: "edge-agent", version: "0.1.0" };

/**
 * The tools /mcp serves, in a store of their own (with listTools, as every store has), each bound to the
 * env keys it declared. Tools that need a session's capabilities (writeTool registers drafts in the session
 * that wrote them) are left out: there is no session here.
 */
export function servedToolStore(env: Readonly<Record<string, unknown>>): ToolStore {
  const store = new ToolStore("mcp");
  const registry = Object.fromEntries(Object.entries(bundledRegistry()).filter(([, mod]) => (mod.getTool().capabilities ?? []).length === 0));
  loadTools(store, withToolContexts(registry, { sessionId: "", env, capabilities: { registerDraft: () => false, bundledToolNames: () => [] } }));
  return store;
}

export function createMcpServer(env: Readonly<Record<string, unknown>>): Server {
  const store = servedToolStore(env);
  const server = new Server(MCP_SERVER_INFO, { capabilities: { tools: {} }, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: store.list().map((t): Tool => ({ name: t.name, title: t.label, description: t.description, inputSchema: { ...t.inputSchema, type: "object" } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const token = request.params._meta?.progressToken;
    let progress = 0;
    const outcome = await runServedToolCall(store, request.params.name, request.params.arguments ?? {}, {
      toolContext: { env: {} }, // each tool already carries its declared context (servedToolStore)
      signal: extra.signal,
      onPartialResult: (partial) => {
        if (token === undefined) return;
        const message = (typeof partial === "string" ? partial : JSON.stringify(partial) ?? "").slice(0, MAX_PROGRESS_MESSAGE_CHARS);
        void extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: ++progress, message } }).catch(() => undefined);
      },
    });
    return toCallToolResult(outcome.result, outcome.isError);
  });
  return server;
}

/** Serves one HTTP request of the MCP Streamable HTTP transport. */
export async function handleMcpRequest(request: Request, env: Readonly<Record<string, unknown>>): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await createMcpServer(env).connect(transport);
  return transport.handleRequest(request);
}

function toCallToolResult(result: AgentToolResult, isError: boolean): CallToolResult {
  const content: CallToolResult["content"] = result.content.map((b) => (b.type === "text" ? { type: "text", text: b.text } : { type: "image", data: b.data, mimeType: b.mimeType }));
  const out: CallToolResult = { content, isError };
  // details are for programs, not the model: they travel in _meta rather than as structuredContent.
  if (Object.keys(result.details).length > 0) out._meta = { "edge-agent/details": result.details };
  return out;
}
