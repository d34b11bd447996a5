/**
 * A real MCP server on 127.0.0.1 for tests, built with the official SDK's low-level Server: Streamable
 * HTTP (stateful) at /mcp and the older HTTP+SSE transport at /sse + /messages. Its tools cover what the
 * client side must handle: progress, isError, a slow call to cancel, a oneOf/if/then schema, a read-only
 * tool, and a tool added later (tools/list_changed). A small control API lets tests look inside.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { McpSessionTransports } from "./mcp-session-transports.ts";
import { sleep } from "./time.ts";

export type MockMcpState = {
  calls: { tool: string; args: unknown }[];
  cancelled: string[];
  /** The `x-test-token` header of the last request, to check configured headers arrive. */
  lastToken: string | null;
};

const TOOLS: Tool[] = [
  {
    name: "echo",
    description: "Echo the text back.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  {
    name: "count-slowly",
    title: "Count slowly",
    description: "Count to n, reporting progress at each step.",
    inputSchema: { type: "object", properties: { n: { type: "integer", minimum: 1, maximum: 10 } }, required: ["n"] },
  },
  { name: "fail", description: "Always fails.", inputSchema: { type: "object", properties: {} } },
  {
    name: "sleep",
    description: "Wait ms milliseconds (cancellable).",
    inputSchema: { type: "object", properties: { ms: { type: "integer" } }, required: ["ms"] },
  },
  {
    name: "area",
    description: "Area of a shape; a percentage scale must be at most 100.",
    inputSchema: {
      type: "object",
      properties: {
        shape: {
          oneOf: [
            {
              type: "object",
              properties: { kind: { const: "circle" }, r: { type: "number" } },
              required: ["kind", "r"],
              additionalProperties: false,
            },
            {
              type: "object",
              properties: { kind: { const: "square" }, side: { type: "number" } },
              required: ["kind", "side"],
              additionalProperties: false,
            },
          ],
        },
        unit: { enum: ["percent", "absolute"] },
        scale: { type: "number" },
      },
      required: ["shape"],
      if: { properties: { unit: { const: "percent" } }, required: ["unit"] },
      then: { properties: { scale: { maximum: 100 } } },
    },
  },
  {
    name: "clock",
    description: "A read-only clock.",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
  },
];
const LATE_TOOL: Tool = { name: "late", description: "Added after the session started.", inputSchema: { type: "object", properties: {} } };

const text = (t: string, isError = false): CallToolResult => ({ content: [{ type: "text", text: t }], isError });

export async function startMockMcpServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const state: MockMcpState = { calls: [], cancelled: [], lastToken: null };
  let tools = [...TOOLS];
  const servers = new Set<Server>();
  const legacy = new Map<string, SSEServerTransport>();

  const streamable = new McpSessionTransports(() => newServer());
  const newServer = (): Server => {
    const server = new Server({ name: "mock-mcp", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      state.calls.push({ tool: request.params.name, args });
      switch (request.params.name) {
        case "echo":
          return text(`echo: ${String(args.text)}`);
        case "count-slowly": {
          const n = Number(args.n);
          const token = request.params._meta?.progressToken;
          for (let i = 1; i <= n; i++) {
            if (token !== undefined) {
              await extra.sendNotification({
                method: "notifications/progress",
                params: { progressToken: token, progress: i, total: n, message: `step ${i}` },
              });
            }
            await sleep(20);
          }
          return { content: [{ type: "text", text: `counted to ${n}` }], structuredContent: { n } };
        }
        case "fail":
          return text("the fail tool failed on purpose", true);
        case "sleep":
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, Number(args.ms));
            extra.signal.addEventListener("abort", () => {
              clearTimeout(timer);
              state.cancelled.push(String(extra.requestId));
              resolve();
            });
          });
          return text("slept");
        case "area": {
          const shape = args.shape as { kind: string; r?: number; side?: number };
          const a = shape.kind === "circle" ? Math.PI * shape.r! ** 2 : shape.side! ** 2;
          return text(`area ${a.toFixed(2)}`);
        }
        case "clock":
          return text("tick");
        case "late":
          return text("late tool ran");
        default:
          return text(`unknown tool ${request.params.name}`, true);
      }
    });
    servers.add(server);
    return server;
  };

  const readBody = async (req: IncomingMessage): Promise<unknown> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    return raw ? JSON.parse(raw) : undefined;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const token = req.headers["x-test-token"];
    if (!url.pathname.startsWith("/control")) state.lastToken = typeof token === "string" ? token : null;
    if (url.pathname === "/control/state") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(state));
      return;
    }
    if (url.pathname === "/control/reset" && req.method === "POST") {
      state.calls.length = 0;
      state.cancelled.length = 0;
      tools = [...TOOLS];
      res.writeHead(204).end();
      return;
    }
    if (url.pathname === "/control/add-tool" && req.method === "POST") {
      if (!tools.some((t) => t.name === LATE_TOOL.name)) tools.push(LATE_TOOL);
      await Promise.all([...servers].map((s) => s.sendToolListChanged().catch(() => undefined)));
      res.writeHead(204).end();
      return;
    }
    if (url.pathname === "/mcp") {
      const sessionId = req.headers["mcp-session-id"];
      const body = req.method === "POST" ? await readBody(req) : undefined;
      if (typeof sessionId === "string" && !streamable.has(sessionId)) {
        res
          .writeHead(404, { "content-type": "application/json" })
          .end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
        return;
      }
      const transport = await streamable.forRequest(sessionId);
      await transport.handleRequest(req, res, body);
      return;
    }
    if (url.pathname === "/sse" && req.method === "GET") {
      const transport = new SSEServerTransport("/messages", res);
      legacy.set(transport.sessionId, transport);
      res.on("close", () => legacy.delete(transport.sessionId));
      await newServer().connect(transport);
      return;
    }
    if (url.pathname === "/messages" && req.method === "POST") {
      const transport = legacy.get(url.searchParams.get("sessionId") ?? "");
      if (!transport) {
        res.writeHead(404).end("unknown session");
        return;
      }
      await transport.handlePostMessage(req, res, await readBody(req));
      return;
    }
    // Like a server that speaks only the old transport: Streamable HTTP requests to /sse are refused.
    res.writeHead(405).end("method not allowed");
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await Promise.all([...servers].map((s) => s.close().catch(() => undefined)));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
