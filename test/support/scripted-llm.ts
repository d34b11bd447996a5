/**
 * Per-session scripting of the mock LLM for tests that run inside workerd. A test puts a marker
 * `[script:<id>]` in its session's system prompt and enqueues replies for that id through a small control
 * server; the mock answers each request from the queue its marker names. Sessions in parallel test files
 * therefore never take each other's replies.
 *   POST /scripts/<id>   body: MockReply[]  → appended to that script
 *   GET  /scripts/<id>/requests            → the chat requests that script answered
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startMockOpenAi, type MockOpenAiServer, type MockReply, type RecordedRequest } from "../../support/mock-openai-server.ts";

export const SCRIPT_MARKER = /\[script:([A-Za-z0-9_-]+)\]/;

export type ScriptedLlm = { llmUrl: string; controlUrl: string; close(): Promise<void> };

function scriptIdOf(request: RecordedRequest): string | undefined {
  for (const message of request.body.messages ?? []) {
    const content = (message as { content?: unknown }).content;
    const text = typeof content === "string" ? content : JSON.stringify(content ?? "");
    const match = text.match(SCRIPT_MARKER);
    if (match) return match[1];
  }
  return undefined;
}

export async function startScriptedLlm(): Promise<ScriptedLlm> {
  const scripts = new Map<string, MockReply[]>();
  const seen = new Map<string, RecordedRequest[]>();
  const mock: MockOpenAiServer = await startMockOpenAi();
  mock.setHandler((request) => {
    const id = scriptIdOf(request) ?? "default";
    seen.set(id, [...(seen.get(id) ?? []), request]);
    return scripts.get(id)?.shift() ?? { text: `(script ${id} has no reply left)` };
  });

  const control: Server = createServer(async (req, res) => {
    const match = req.url?.match(/^\/scripts\/([A-Za-z0-9_-]+)(\/requests)?$/);
    if (!match) return void res.writeHead(404).end();
    const id = match[1]!;
    if (req.method === "POST" && !match[2]) {
      let body = "";
      for await (const chunk of req) body += chunk;
      scripts.set(id, [...(scripts.get(id) ?? []), ...(JSON.parse(body) as MockReply[])]);
      return void res.writeHead(204).end();
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(seen.get(id) ?? []));
  });
  await new Promise<void>((resolve) => control.listen(0, "127.0.0.1", resolve));
  const port = (control.address() as AddressInfo).port;
  return {
    llmUrl: mock.url,
    controlUrl: `http://127.0.0.1:${port}`,
    close: async () => {
      await new Promise<void>((resolve) => control.close(() => resolve()));
      await mock.close();
    },
  };
}
