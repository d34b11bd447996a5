/**
 * The Worker's MCP client as a command the official conformance suite starts: `node … worker-client.ts
 * <server-url>`, with MCP_CONFORMANCE_WORKER_URL naming a running `wrangler dev` (whose MCP_ALLOWED_URLS
 * admits the suite's servers and whose model is the scripted one of tool-caller.ts). Everything goes
 * through the Worker's public API, as a person at the web page would: it creates a session, adds the
 * scenario's server to it (POST …/mcp-servers, with the client the scenario registered beforehand, if
 * any), opens the authorization URL the session reports when the
 * server wants OAuth (following the redirects to the Worker's callback, which completes the flow), asks
 * the model to call every tool of the server once, and answers each `mcpElicitation` through the
 * elicitations route with what the page's form holds when submitted untouched (the schema's defaults).
 * A run that ends with a new authorization URL (a step-up, revoked tokens) is authorized and asked
 * again, a few times at most. Run by conformance.node.test.ts; the suite judges what the Worker sent.
 */
import { createClient, type SessionHandle, type SessionStreamEvent } from "../../../src/client/index.ts";
import { askForEveryTool, SUITE_SERVER } from "./user-request.ts";

/** A server that keeps asking for authorization after this many grants is refused in turn (no endless loop). */
const MAX_AUTHORIZATIONS = 3;
/** A run of a few tool calls on the scripted model ends well within this. */
const RUN_TIMEOUT_MS = 20_000;

type Field = { type?: string; default?: unknown; enum?: unknown[]; oneOf?: { const: unknown }[] };

/**
 * The answer of the page's form (public/app/elicitation-form.js) submitted as shown: each field's default,
 * an unticked box for a boolean without one, empty fields left out. A required field without a default
 * gets a value of its type, as the person would have to type one.
 */
function formDefaults(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Field>;
  const required = new Set((schema.required ?? []) as string[]);
  const content: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(properties)) {
    const choices = field.oneOf?.map((o) => o.const) ?? field.enum;
    if (field.default !== undefined && (!choices || choices.includes(field.default))) content[name] = field.default;
    else if (field.type === "boolean") content[name] = false;
    else if (!required.has(name)) continue;
    else if (choices && choices.length > 0) content[name] = choices[0];
    else if (field.type === "number" || field.type === "integer") content[name] = 1;
    else content[name] = "conformance";
  }
  return content;
}

/** What the suite tells the client of its scenario (MCP_CONFORMANCE_CONTEXT): calls to make, a client registered beforehand. */
type ScenarioContext = { toolCalls?: { name: string; arguments?: Record<string, unknown> }[]; client_id?: string; client_secret?: string };
const scenario: ScenarioContext = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as ScenarioContext;

/** The calls the scenario names, by tool. */
function scenarioToolCalls(): Record<string, Record<string, unknown>> {
  return Object.fromEntries((scenario.toolCalls ?? []).map((c) => [c.name, c.arguments ?? {}]));
}

/** A client registered beforehand, when the scenario hands one over (auth/pre-registration): the person gives it with the server. */
function preRegisteredClient(): { clientId?: string; clientSecret?: string } {
  return scenario.client_id
    ? { clientId: scenario.client_id, ...(scenario.client_secret ? { clientSecret: scenario.client_secret } : {}) }
    : {};
}

/** The person's part: open the authorization URL and follow it back to the Worker's callback. */
async function authorizeAsUser(authorizationUrl: string, worker: string): Promise<void> {
  const response = await fetch(authorizationUrl, { redirect: "follow" });
  const page = await response.text();
  if (!response.url.startsWith(`${worker}/`))
    throw new Error(`the authorization ended at ${response.url} (${response.status}), not at the Worker's callback`);
  if (!response.ok) throw new Error(`the Worker's callback answered ${response.status}: ${page.slice(0, 500)}`);
}

/** The session's events as they come, with a way to wait for the next of a type. */
class Events {
  private readonly seen: SessionStreamEvent[] = [];
  private waiters: (() => void)[] = [];
  private readonly stop = new AbortController();
  private failure: unknown;

  constructor(session: SessionHandle, onEvent: (event: SessionStreamEvent) => void) {
    void (async () => {
      try {
        for await (const event of session.events({ signal: this.stop.signal })) {
          this.seen.push(event);
          onEvent(event);
          this.wake();
        }
      } catch (err) {
        this.failure = err;
        this.wake();
      }
    })();
  }

  /** Waits for an event of `type` after the first `from` events; the index after it. */
  async next(type: string, from: number): Promise<number> {
    const deadline = Date.now() + RUN_TIMEOUT_MS;
    for (;;) {
      const at = this.seen.findIndex((e, i) => i >= from && e.type === type);
      if (at >= 0) return at + 1;
      if (this.failure) throw this.failure;
      if (Date.now() > deadline) throw new Error(`no ${type} within ${RUN_TIMEOUT_MS} ms; saw ${this.seen.map((e) => e.type).join(",")}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1_000);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  get count(): number {
    return this.seen.length;
  }

  close(): void {
    this.stop.abort();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

async function main(): Promise<void> {
  const url = process.argv.at(-1);
  if (!url || !/^https?:\/\//.test(url)) throw new Error("usage: worker-client.ts <server-url>");
  const worker = process.env.MCP_CONFORMANCE_WORKER_URL?.replace(/\/$/, "");
  if (!worker) throw new Error("MCP_CONFORMANCE_WORKER_URL must name the running Worker");
  const session = await createClient({ baseUrl: worker }).createSession();
  /** Authorization URLs the session reported, and those the person has opened. */
  const asked: string[] = [];
  const opened = new Set<string>();
  const answering: Promise<unknown>[] = [];
  const events = new Events(session, (event) => {
    if (event.type === "mcpAuthRequired") asked.push(event.authorizationUrl);
    if (event.type === "mcpElicitation")
      answering.push(session.answerElicitation(event.elicitationId, "accept", formDefaults(event.requestedSchema)));
    if (event.type === "error") console.error(`session error: ${event.message}`);
  });
  const authorize = async (authorizationUrl: string) => {
    if (opened.size >= MAX_AUTHORIZATIONS) throw new Error(`the server still asks for authorization after ${opened.size} grants`);
    opened.add(authorizationUrl);
    await authorizeAsUser(authorizationUrl, worker);
  };
  try {
    const added = await session.addMcpServer({ name: SUITE_SERVER, url, ...preRegisteredClient() });
    console.log(`added: ${JSON.stringify(added)}`);
    if (added.authorizationUrl) await authorize(added.authorizationUrl);
    const request = askForEveryTool(scenarioToolCalls());
    for (let from = events.count; ; ) {
      await session.send(request);
      from = await events.next("runEnd", from);
      await Promise.all(answering);
      const pending = asked.filter((u) => !opened.has(u) && u !== added.authorizationUrl);
      if (pending.length === 0) break;
      for (const next of new Set(pending)) await authorize(next);
    }
    const reply = await session.takeResponse();
    console.log(`answer: ${JSON.stringify(reply?.content ?? null).slice(0, 300)}`);
  } finally {
    events.close();
    await session.removeMcpServer(SUITE_SERVER).catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
