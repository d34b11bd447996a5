/**
 * The Worker's half of an event stream (src/http/event-bridge.ts), against a real WebSocketPair standing
 * in for the session object: bytes pass in order, heartbeats come from the Worker while the object is
 * silent, and either side leaving ends the other.
 */
import { describe, expect, it } from "vitest";
import { pipeSocketToSse } from "../../src/http/event-bridge.ts";
import { MAX_UNREAD_BYTES } from "../../src/wire/live-stream.ts";

function connectedPair(): { worker: WebSocket; object: WebSocket } {
  const pair = new WebSocketPair();
  const [worker, object] = [pair[0], pair[1]];
  worker.accept();
  object.accept();
  return { worker, object };
}

const decoder = new TextDecoder();

async function readText(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  until: (text: string) => boolean,
  timeoutMs = 3_000,
): Promise<string> {
  let text = "";
  const deadline = Date.now() + timeoutMs;
  while (!until(text)) {
    if (Date.now() > deadline) throw new Error(`timed out; read so far: ${JSON.stringify(text)}`);
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

const closedEvent = (socket: WebSocket) =>
  new Promise<void>((resolve) => socket.addEventListener("close", () => resolve(), { once: true }));

describe("event bridge", () => {
  it("passes what the object sends to the SSE body, in order", async () => {
    const { worker, object } = connectedPair();
    const reader = pipeSocketToSse(worker).getReader();
    object.send("id: 1\nevent: a\ndata: {}\n\n");
    object.send("id: 2\nevent: b\ndata: {}\n\n");
    expect(await readText(reader, (t) => t.includes("id: 2"))).toBe("id: 1\nevent: a\ndata: {}\n\nid: 2\nevent: b\ndata: {}\n\n");
    await reader.cancel();
  });

  it("writes heartbeat comments while the object is silent", async () => {
    const { worker } = connectedPair();
    const reader = pipeSocketToSse(worker, 20).getReader();
    expect(await readText(reader, (t) => t.split(": ping\n\n").length > 2)).toMatch(/^(: ping\n\n){2,}$/);
    await reader.cancel();
  });

  it("ends the SSE body when the object closes the socket", async () => {
    const { worker, object } = connectedPair();
    const reader = pipeSocketToSse(worker).getReader();
    object.send("id: 1\ndata: {}\n\n");
    object.close(1000, "session shut down");
    expect(await readText(reader, () => false)).toBe("id: 1\ndata: {}\n\n");
  });

  it("closes the socket when the reader goes away", async () => {
    const { worker, object } = connectedPair();
    const closed = closedEvent(object);
    const reader = pipeSocketToSse(worker).getReader();
    await reader.cancel();
    await closed;
  });

  it("cuts a reader that leaves more than the backlog bound unread, and closes the socket", async () => {
    const { worker, object } = connectedPair();
    const closed = closedEvent(object);
    const body = pipeSocketToSse(worker); // never read
    const big = "x".repeat(256 * 1024);
    for (let sent = 0; sent <= MAX_UNREAD_BYTES + big.length; sent += big.length) object.send(`data: ${big}\n\n`);
    await closed;
    expect(body.locked).toBe(false);
  });
});
