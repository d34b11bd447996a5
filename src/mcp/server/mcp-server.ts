/**
 * The Worker's own tools as an MCP server at /mcp: the bundled tools (deployed written tools are bundled
 * after their redeploy) over the SDK's web-standard Streamable HTTP transport, with sessions and resumable
 * streams (mcp-sessions.ts). Each tools/call runs through the core pipeline (served-tool-call.ts): partial
 * results become progress notifications, a tool's context can log (notifications/message, filtered by
 * logging/setLevel), ask the client's user (elicitation), which is also how a call that needs
 * approval gets one, ask the client's model (sampling) and ask the client's roots (roots/list). Tools' annotations and output schemas are served. The router checks API_TOKEN.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
  ListToolsRequestSchema,
  SetLevelRequestSchema,
  type CallToolResult,
  type LoggingLevel,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import type { AppEnv } from "../../env.ts";
import { ToolStore, loadTools, type AgentTool } from "../../core/index.ts";
import { bundledRegistry } from "../../tools/catalog.ts";
import { contextFor, type ToolHost } from "../../tools/tool-context.ts";
import { toCallToolResult } from "../mcp-content.ts";
import {
  TOOL_LOG_LEVELS,
  type ToolElicitation,
  type ToolElicitationAnswer,
  type ToolLogLevel,
  type ToolRoot,
  type ToolSampling,
  type ToolSamplingAnswer,
} from "../mcp-vocabulary.ts";
import { serveMcpSession, type SessionLevels } from "./mcp-sessions.ts";
import { isModernRequest, serveModernRequest } from "./modern-server.ts";
import { sealingKeyOf } from "../signing.ts";
import { progressOf } from "./progress.ts";
import { runServedToolCall } from "./served-tool-call.ts";

export const MCP_SERVER_INFO = { name: "edge-agent", version: "0.1.0" };

/**
 * The tools /mcp serves, in a store of their own (with listTools, as every store has). Tools that need a
 * session's capabilities (writeTool registers drafts in the session that wrote them) are left out: there
 * is no session here. Each call gets the context its tool declared (contextFor) plus this call's channels.
 */
export function servedToolStore(): ToolStore {
  const store = new ToolStore("mcp");
  const registry = Object.fromEntries(
    Object.entries(bundledRegistry()).filter(([, mod]) => (mod.getTool().capabilities ?? []).length === 0),
  );
  loadTools(store, registry);
  return store;
}

export function createMcpServer(env: Readonly<Record<string, unknown>>, levels: SessionLevels): Server {
  const store = servedToolStore();
  const host: ToolHost = { sessionId: "", env, capabilities: { registerDraft: () => false, bundledToolNames: () => [] } };
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: {}, logging: {} },
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
  // The session's level, kept by its object (mcp-sessions.ts); the SDK's own handler keeps it in memory.
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    await levels.set(request.params.level);
    return {};
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: store.list().map(describeTool) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const token = request.params._meta?.progressToken;
    let count = 0;
    const capabilities = server.getClientCapabilities();
    const canElicit = capabilities?.elicitation !== undefined;
    // Sent on this call's own stream (related to the request), which the client is reading.
    const elicit = async (question: ToolElicitation): Promise<ToolElicitationAnswer> => {
      const answer = await extra.sendRequest(
        {
          method: "elicitation/create",
          params: { mode: "form", message: question.message, requestedSchema: question.requestedSchema as never },
        },
        ElicitResultSchema,
        { signal: extra.signal },
      );
      return { action: answer.action, ...(answer.content ? { content: answer.content } : {}) };
    };
    const sample = async (question: ToolSampling): Promise<ToolSamplingAnswer> => {
      const params = {
        messages: question.messages.map((m) => ({ role: m.role, content: { type: "text" as const, text: m.text } })),
        maxTokens: question.maxTokens,
        ...(question.systemPrompt !== undefined ? { systemPrompt: question.systemPrompt } : {}),
      };
      const reply = await extra.sendRequest({ method: "sampling/createMessage", params }, CreateMessageResultSchema, {
        signal: extra.signal,
      });
      return { text: reply.content.type === "text" ? reply.content.text : `[${reply.content.type}]`, model: reply.model };
    };
    const roots = async (): Promise<ToolRoot[]> => {
      const reply = await extra.sendRequest({ method: "roots/list" }, ListRootsResultSchema, { signal: extra.signal });
      return reply.roots.map((r) => ({ uri: r.uri, ...(r.name !== undefined ? { name: r.name } : {}) }));
    };
    const log = (level: ToolLogLevel, data: unknown) => {
      if (TOOL_LOG_LEVELS.indexOf(level) < TOOL_LOG_LEVELS.indexOf(levels.get())) return;
      void extra
        .sendNotification({ method: "notifications/message", params: { level: level as LoggingLevel, logger: request.params.name, data } })
        .catch(() => undefined);
    };
    const tool = store.get(request.params.name);
    const outcome = await runServedToolCall(store, request.params.name, request.params.arguments ?? {}, {
      toolContext: {
        ...(tool ? contextFor(tool, host) : { env: {} }),
        log,
        ...(canElicit ? { elicit } : {}),
        ...(capabilities?.sampling !== undefined ? { sample } : {}),
        ...(capabilities?.roots !== undefined ? { roots } : {}),
      },
      elicit: canElicit ? elicit : undefined,
      signal: extra.signal,
      onPartialResult: (partial) => {
        if (token === undefined) return;
        const params = progressOf(partial, ++count);
        void extra
          .sendNotification({ method: "notifications/progress", params: { progressToken: token, ...params } })
          .catch(() => undefined);
      },
    });
    return toCallToolResult(outcome.result, outcome.isError, tool?.outputSchema !== undefined);
  });
  return server;
}

/** A tool as tools/list shows it: its schema, its behaviour hints and, when declared, its output schema. */
function describeTool(t: AgentTool): Tool {
  const tool: Tool = { name: t.name, title: t.label, description: t.description, inputSchema: { ...t.inputSchema, type: "object" } };
  if (t.annotations) tool.annotations = { ...t.annotations };
  if (t.outputSchema) tool.outputSchema = { ...t.outputSchema, type: "object" };
  return tool;
}

/**
 * Serves one HTTP request of /mcp: a 2026-07-28 client's statelessly (modern-server.ts), an older
 * client's through the handshake with a sealed session id (mcp-sessions.ts).
 */
export async function handleMcpRequest(request: Request, env: AppEnv): Promise<Response> {
  const secret = await sealingKeyOf(env);
  if (await isModernRequest(request)) {
    return serveModernRequest(request, { store: servedToolStore(), env, secret, serverInfo: MCP_SERVER_INFO, describeTool });
  }
  return serveMcpSession(request, env, (levels) => createMcpServer(env, levels), secret);
}
