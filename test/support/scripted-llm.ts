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
import { SUMMARY_PROMPT_TITLE } from "../../src/core/index.ts";
import { startMockOpenAi, type MockOpenAiServer, type MockReply, type RecordedRequest } from "../../support/mock-openai-server.ts";

export const SCRIPT_MARKER = /\[script:([A-Za-z0-9_-]+)\]/;

/**
 * A scripted reply; `summary: true` marks one that answers a compaction's summary call. A summary call
 * takes the next reply only when it is so marked, else it gets DEFAULT_SUMMARY and the script stays as it
 * was: a test that does not care about compaction need not script for it.
 */
export type ScriptedReply = MockReply & { summary?: boolean };
export const DEFAULT_SUMMARY = "Summary of the earlier conversation (scripted default).";

/** A compaction's summary call: no tools, the summary prompt as its system message. */
function isSummaryCall(request: RecordedRequest): boolean {
  const first = (request.body.messages ?? [])[0] as { role?: string; content?: unknown } | undefined;
  const tools = request.body.tools ?? [];
  return (
    tools.length === 0 && first?.role === "system" && typeof first.content === "string" && first.content.startsWith(SUMMARY_PROMPT_TITLE)
  );
}

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
  const scripts = new Map<string, ScriptedReply[]>();
  const seen = new Map<string, RecordedRequest[]>();
  const mock: MockOpenAiServer = await startMockOpenAi();
  mock.setHandler((request) => {
    const id = scriptIdOf(request) ?? "default";
    seen.set(id, [...(seen.get(id) ?? []), request]);
    const script = scripts.get(id);
    if (isSummaryCall(request) && !script?.[0]?.summary) return { text: DEFAULT_SUMMARY };
    return script?.shift() ?? { text: `(script ${id} has no reply left)` };
  });

  const control: Server = createServer(async (req, res) => {
    const match = req.url?.match(/^\/scripts\/([A-Za-z0-9_-]+)(\/requests)?$/);
    if (!match) return void res.writeHead(404).end();
    const id = match[1]!;
    if (req.method === "POST" && !match[2]) {
      let body = "";
      for await (const chunk of req) body += chunk;
      scripts.set(id, [...(scripts.get(id) ?? []), ...(JSON.parse(body) as ScriptedReply[])]);
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
