/**
 * A request catcher on 127.0.0.1 for the attack corpus: every request to it is a payload that reached the
 * network. `hits()` counts them; `GET /hits` answers the count (for tests inside workerd, which cannot
 * read Node's memory). Started and stopped by the test or setup that uses it.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export type MarkerServer = { url: string; hits(): number; close(): Promise<void> };

export async function startMarkerServer(): Promise<MarkerServer> {
  let hits = 0;
  const server = createServer((req, res) => {
    if (req.url === "/hits") {
      res.end(String(hits));
      return;
    }
    hits += 1;
    res.end("marker reached");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/marker`,
    hits: () => hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
