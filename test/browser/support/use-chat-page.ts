/**
 * Serves the useChat test app (use-chat-app.js, bundled with esbuild from node_modules: no CDN) from a
 * node:http server on 127.0.0.1, another origin than wrangler dev, as a user's own app would be.
 * The test passes the Worker's URL, the session id and key in the page's query. Closed by its test.
 */
import { build } from "esbuild";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { REPO_ROOT } from "../../../support/wrangler-dev.ts";

export type UseChatPageServer = {
  origin: string;
  pageUrl(worker: string, session: { id: string; key: string }): string;
  close(): Promise<void>;
};

export async function serveUseChatPage(): Promise<UseChatPageServer> {
  const bundled = await build({
    entryPoints: [join(REPO_ROOT, "test", "browser", "support", "use-chat-app.js")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    define: { "process.env.NODE_ENV": '"production"' },
    logLevel: "silent",
  });
  const script = bundled.outputFiles[0]!.text;
  const html = `<!doctype html><meta charset="utf-8"><title>useChat app</title><div id="root"></div><script type="module" src="/app.js"></script>`;
  const server = createServer((req, res) => {
    if (req.url?.startsWith("/app.js")) {
      res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" });
      return void res.end(script);
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    pageUrl: (worker, session) => `${origin}/?${new URLSearchParams({ worker, session: session.id, key: session.key }).toString()}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
