/**
 * The bench's floor for the step: a Durable Object that does nothing but send a given Chat Completions
 * request to the bench LLM `count` times in a row, reading each reply whole (or chunk by chunk when it
 * streams, as the runtime reads one). The bench replays our Worker's own request bodies through it, so
 * the mock sees the same bytes and answers the same reply; what its gaps show is what workerd, the loopback
 * and the mock cost on this machine for a request of that size, with none of our code in the step.
 * Driven by scripts/bench/floor-worker.ts: POST /replay?target=URL&count=N with the body to send.
 */
import { DurableObject } from "cloudflare:workers";

type Env = { FLOOR: DurableObjectNamespace<FloorLoop> };

export class FloorLoop extends DurableObject<Env> {
  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const target = url.searchParams.get("target");
    const count = Number(url.searchParams.get("count") ?? "1");
    if (!target || !Number.isInteger(count) || count < 1) return Response.json({ error: "target and a positive count are required" }, { status: 400 });
    // Bytes, as the runtime sends its encoded request (src/llm/request-json.ts).
    const body = new Uint8Array(await request.arrayBuffer());
    for (let i = 0; i < count; i++) {
      const reply = await fetch(target, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer bench" }, body });
      if (!reply.ok || !reply.body) return Response.json({ error: `the LLM answered ${reply.status}: ${await reply.text()}` }, { status: 502 });
      if (reply.headers.get("content-type")?.startsWith("text/event-stream")) {
        const reader = reply.body.getReader();
        while (!(await reader.read()).done);
      } else {
        await reply.text();
      }
    }
    return Response.json({ sent: count });
  }
}

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    return env.FLOOR.get(env.FLOOR.idFromName("floor")).fetch(request);
  },
};
