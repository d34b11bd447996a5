/**
 * A TCP proxy on 127.0.0.1 in front of wrangler dev, so a browser test can cut every open connection at
 * once (the page's event stream included) while the server keeps running: a network drop as the page
 * sees it. Started and closed by the test; closing ends every connection it carried.
 */
import { connect, createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export type TcpProxy = {
  url: string;
  /** Destroys every open connection (both sides); returns how many there were. */
  cutAll(): number;
  close(): Promise<void>;
};

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  const server = createServer((client) => {
    const upstream = connect(targetPort, "127.0.0.1");
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;

  const cutAll = () => {
    const count = pairs.size;
    for (const [client, upstream] of [...pairs]) {
      client.destroy();
      upstream.destroy();
    }
    pairs.clear();
    return count;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    cutAll,
    close: () =>
      new Promise<void>((resolve) => {
        cutAll();
        server.close(() => resolve());
      }),
  };
}
