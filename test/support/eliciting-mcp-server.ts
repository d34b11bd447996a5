/**
 * A real MCP server on 127.0.0.1 that asks its client's user (elicitation/create), built with the SDK's
 * McpServer over stateful Streamable HTTP. Tool `signup` asks for a name, an age and a plan and returns
 * what the answer was; `/answers` shows every answer it received, for tests of the session's
 * elicitation route (test/mcp/workers/elicitation.test.ts). Started by mcp-global-setup.ts.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as z from "zod";
import { McpSessionTransports } from "./mcp-session-transports.ts";

export type ReceivedAnswer = { action: string; content?: Record<string, unknown> };

export const SIGNUP_SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", minLength: 1 },
    age: { type: "integer", title: "Age", minimum: 0 },
    plan: { type: "string", title: "Plan", enum: ["free", "pro"] },
    newsletter: { type: "boolean", title: "Newsletter", default: false },
  },
  required: ["name", "plan"],
} as const;

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString("utf8");
  return raw ? JSON.parse(raw) : undefined;
}

export async function startElicitingMcpServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const answers: ReceivedAnswer[] = [];
  const servers: McpServer[] = [];

  const transports = new McpSessionTransports(() => newServer());
  const newServer = (): McpServer => {
    const server = new McpServer({ name: "asker", version: "1.0.0" });
    server.registerTool(
      "signup",
      { description: "Signs the user up, asking them for their details", inputSchema: { reason: z.string().optional() } },
      async () => {
        const answer = await server.server.elicitInput({ message: "Please sign up", requestedSchema: SIGNUP_SCHEMA as never });
        answers.push({ action: answer.action, ...(answer.content ? { content: answer.content as Record<string, unknown> } : {}) });
        return { content: [{ type: "text", text: `answer: ${answer.action} ${JSON.stringify(answer.content ?? {})}` }] };
      },
    );
    servers.push(server);
    return server;
  };

  const http = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      if (url.pathname === "/answers") {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answers));
        return;
      }
      const body = req.method === "POST" ? await readBody(req) : undefined;
      const transport = await transports.forRequest(req.headers["mcp-session-id"]);
      await transport.handleRequest(req, res, body);
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await Promise.all(servers.map((s) => s.close().catch(() => undefined)));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
