/**
 * Helpers for the client SDK tests: a real node:http server on 127.0.0.1 driven by a per-test handler
 * (it can be closed and started again on the same port), the exact SSE bytes the Worker sends for an
 * event, and a bounded collector for async iterators. Every server started here is closed by its test.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { formatSse } from "../../src/wire/sse.ts";

export type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export type TestServer = {
  url: string;
  port: number;
  /** Every request received, in order, with the headers the tests look at. */
  requests: { method: string; url: string; authorization?: string; lastEventId?: string; body: string }[];
  close(): Promise<void>;
  /** Listens again on the same port with the same handler (a server restart). */
  restart(): Promise<void>;
};

export async function startTestServer(handler: Handler, port = 0): Promise<TestServer> {
  const requests: TestServer["requests"] = [];
  let server: Server | undefined;

  const listen = async (onPort: number): Promise<number> => {
    const next = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on("data", (part: Buffer) => parts.push(part));
      req.on("end", () => {
        requests.push({
          method: req.method ?? "GET",
          url: req.url ?? "/",
          authorization: req.headers.authorization,
          lastEventId: header(req, "last-event-id"),
          body: Buffer.concat(parts).toString("utf8"),
        });
        void Promise.resolve(handler(req, res)).catch(() => res.destroy());
      });
    });
    await new Promise<void>((resolve, reject) => {
      next.once("error", reject);
      next.listen(onPort, "127.0.0.1", () => resolve());
    });
    server = next;
    return (next.address() as AddressInfo).port;
  };

  const close = () =>
    new Promise<void>((resolve) => {
      const current = server;
      server = undefined;
      if (!current) return resolve();
      current.closeAllConnections();
      current.close(() => resolve());
    });

  const actualPort = await listen(port);
  return {
    url: `http://127.0.0.1:${actualPort}`,
    port: actualPort,
    requests,
    close,
    restart: async () => {
      await close();
      await listen(actualPort);
    },
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The bytes the Worker writes for one stamped event. */
export function wireEvent(seq: number, type = "messageDelta"): string {
  const data = JSON.stringify({ type, text: `t${seq}`, seq, sessionId: "s_test", ts: 1_000 + seq });
  return formatSse({ id: seq, event: type, data });
}

export function wireEvents(from: number, to: number): string {
  let out = "";
  for (let seq = from; seq <= to; seq++) out += wireEvent(seq);
  return out;
}

/** Opens an SSE answer the way the Worker does: headers, then `retry:` first. */
export function openSse(res: ServerResponse, retryMs: number): void {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
  res.write(`retry: ${retryMs}\n\n`);
}

/** The seq after which a request asks to resume (0 when it sent no Last-Event-ID). */
export function resumeAfter(req: IncomingMessage): number {
  const raw = header(req, "last-event-id");
  return raw === undefined ? 0 : Number(raw);
}

/** Takes `count` items from an iterator, failing (instead of hanging) after `timeoutMs`. */
export async function take<T>(iterator: AsyncIterator<T>, count: number, timeoutMs = 5_000): Promise<T[]> {
  const items: T[] = [];
  const deadline = Date.now() + timeoutMs;
  while (items.length < count) {
    const left = deadline - Date.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${items.length} of ${count} items`)), Math.max(0, left));
    });
    try {
      const next = await Promise.race([iterator.next(), timeout]);
      if (next.done) break;
      items.push(next.value);
    } finally {
      clearTimeout(timer);
    }
  }
  return items;
}
