/**
 * An identity provider's JWKS endpoint for tests: a real HTTP server on 127.0.0.1 serving the public keys
 * a test set (GET /jwks.json), counting fetches; POST /keys replaces the set (a key rotation) from
 * another process, e.g. a test inside workerd. Tokens are signed by the tests themselves (test/support/
 * test-tokens.ts): nothing here signs.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type JwksServer = {
  url: string;
  setKeys: (keys: object[]) => void;
  fetches: () => number;
  close: () => Promise<void>;
};

export async function startJwksServer(): Promise<JwksServer> {
  let keys: object[] = [];
  let fetches = 0;
  const server: Server = createServer((req, res) => {
    // The path alone: tests add a query to give each config a JWKS URL (and cache) of its own.
    const path = new URL(req.url ?? "/", "http://jwks.test").pathname;
    if (req.method === "GET" && path === "/jwks.json") {
      fetches += 1;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys }));
      return;
    }
    if (req.method === "POST" && path === "/keys") {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        keys = (JSON.parse(body) as { keys: object[] }).keys;
        res.writeHead(204).end();
      });
      return;
    }
    if (req.method === "GET" && path === "/fetches") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ fetches }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setKeys: (next) => void (keys = next),
    fetches: () => fetches,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
