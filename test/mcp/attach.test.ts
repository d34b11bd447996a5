/**
 * attachMcpTools when the deployer's MCP_SERVERS cannot be read: the session is told once, gets none of
 * the deployer's servers, and keeps everything that does not depend on them: the servers it added itself,
 * with their questions (elicitation) still reaching its user. Against a real SDK server that asks
 * (test/support/eliciting-mcp-server.ts).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ToolStore } from "../../src/core/tool-store.ts";
import { attachMcpTools, type McpEnv } from "../../src/mcp/client/attach.ts";
import type { McpElicitation } from "../../src/mcp/client/mcp-connection.ts";
import type { McpOAuthStore } from "../../src/mcp/oauth/oauth-store.ts";
import type { McpSessionEvent } from "../../src/mcp/client/session-mcp-tools.ts";
import { startElicitingMcpServer } from "../support/eliciting-mcp-server.ts";
import { textOf } from "../support/text.ts";

// attach.ts reaches the Worker's credentials object, a Durable Object class, which this test never uses.
vi.mock("cloudflare:workers", () => ({ DurableObject: class {} }));

let asker: Awaited<ReturnType<typeof startElicitingMcpServer>>;
beforeAll(async () => {
  asker = await startElicitingMcpServer();
});
afterAll(() => asker.close());

describe("a session whose Worker has a malformed MCP_SERVERS", () => {
  it("reports it, and still lets the servers it added ask its user", async () => {
    const store = new ToolStore("s_attach");
    const events: McpSessionEvent[] = [];
    const asked: { server: string; message: string }[] = [];
    // No MCP_CREDENTIALS: without an origin no OAuth client is made, so the binding is never reached.
    const env = { MCP_SERVERS: '[{"name": "docs", "url": ' } as McpEnv;
    const mcp = attachMcpTools(
      store,
      env,
      undefined,
      (event) => events.push(event),
      { sessionId: "s_attach", added: [{ name: "asker", url: `${asker.url}/mcp` }], store: {} as McpOAuthStore },
      async (server: string, question: McpElicitation) => {
        asked.push({ server, message: question.message });
        return { action: "accept", content: { name: "Ada", plan: "pro" } };
      },
    );
    await mcp.refresh();
    expect(events).toEqual([
      { type: "error", message: expect.stringMatching(/^MCP_SERVERS is not valid JSON.*; no MCP tools are available$/) },
    ]);
    expect(mcp.describe()).toEqual([{ name: "asker", source: "session", status: "ready", url: `${asker.url}/mcp` }]);

    const signup = store.get("asker_signup")!;
    const result = await signup.execute("call_1", {}, new AbortController().signal, () => {});
    expect(asked).toEqual([{ server: "asker", message: "Please sign up" }]);
    expect(textOf(result)).toBe('answer: accept {"name":"Ada","plan":"pro","newsletter":false}');
    await mcp.close();
  });
});
