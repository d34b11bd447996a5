/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance) against both of our MCP sides,
 * both through one real `wrangler dev` (a temp copy of the project with the suite's fixture tools added
 * to tools/, so they never ship): its server scenarios against /mcp, and its client scenarios against the
 * Worker's sessions. For a client scenario the suite starts worker-client.ts, which plays the person at
 * the page: it creates a session, adds the scenario's server (MCP_ALLOWED_URLS admits any port of
 * localhost, where the suite listens), opens the authorization URL the session reports, answers its
 * elicitations, and asks the model (the scripted mock LLM of tool-caller.ts, a real HTTP server here) to
 * call every tool once. baseline.yml and baseline-2026-07-28.yml list what is expected to fail, each with
 * its reason; the suite exits non-zero on a new failure and on a baseline entry that now passes.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { cp, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import tls from "node:tls";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpConnection, type McpElicitation } from "../../../src/mcp/client/mcp-connection.ts";
import { startMockOpenAi, type MockOpenAiServer } from "../../../support/mock-openai-server.ts";
import { startWranglerDev, type WranglerDev } from "../../../support/wrangler-dev.ts";
import { copyProject, REPO_ROOT, type TempProject } from "../../support/temp-project.ts";
import { callEveryTool } from "./tool-caller.ts";

const HERE = path.join(REPO_ROOT, "test", "mcp", "conformance");
/** Expected failures of revision 2025-11-25 (and the client scenarios). */
const BASELINE = path.join(HERE, "baseline.yml");
/** Expected failures of revision 2026-07-28, server and client. */
const BASELINE_2026 = path.join(HERE, "baseline-2026-07-28.yml");
const BIN = path.join(REPO_ROOT, "node_modules", ".bin");
const CLIENT_COMMAND = `${path.join(BIN, "node")} --experimental-transform-types --disable-warning=ExperimentalWarning ${path.join(HERE, "worker-client.ts")}`;
/** Client scenarios run this many at a time: each is a session of its own, on its own suite server. */
const CLIENT_CONCURRENCY = 4;
/** The client scenarios besides the auth suite, at the revision each scenario names. */
const CLIENT_SCENARIOS = [
  "initialize",
  "tools_call",
  "sse-retry",
  "elicitation-sep1034-client-defaults",
  // The auth scenarios outside the suite: back-compat, drafts and extensions.
  "auth/2025-03-26-oauth-metadata-backcompat",
  "auth/2025-03-26-oauth-endpoint-fallback",
  "auth/resource-mismatch",
  "auth/offline-access-scope",
  "auth/offline-access-not-supported",
  "auth/client-credentials-jwt",
  "auth/client-credentials-basic",
];

/** The suite's auth scenarios (its `--suite auth`) at revision 2025-11-25. */
const AUTH_SUITE = [
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
  "auth/basic-cimd",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/scope-step-up",
  "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/pre-registration",
];

/** Revision 2026-07-28's client requirements, run at that revision. */
const CLIENT_SCENARIOS_2026 = [
  "tools_call",
  "request-metadata",
  "sep-2322-client-request-state",
  "http-standard-headers",
  "http-custom-headers",
  "http-invalid-tool-headers",
  "json-schema-ref-no-deref",
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
  "auth/basic-cimd",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/scope-step-up",
  "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/pre-registration",
  "auth/resource-mismatch",
  "auth/offline-access-scope",
  "auth/offline-access-not-supported",
  "auth/authorization-server-migration",
  "auth/iss-supported",
  "auth/iss-not-advertised",
  "auth/iss-supported-missing",
  "auth/iss-wrong-issuer",
  "auth/iss-unexpected",
  "auth/iss-normalized",
  "auth/metadata-issuer-mismatch",
];

/**
 * The client scenarios' Worker serves https, as a deployed one does (it offers its Client ID Metadata
 * Document only from an https origin), with a self-signed certificate for localhost and 127.0.0.1 kept for
 * tests alone.
 */
const TLS = {
  keyPath: path.join(REPO_ROOT, "test", "support", "tls", "key.pem"),
  certPath: path.join(REPO_ROOT, "test", "support", "tls", "cert.pem"),
};

let project: TempProject;
/** Over http: the server scenarios (DNS-rebinding protection is about a local server without https). */
let dev: WranglerDev;
/** Over https: the client scenarios, the Worker's origin being https as when deployed. */
let clientDev: WranglerDev;
let llm: MockOpenAiServer;

type Run = { code: number | null; output: string };

/** Runs the suite's CLI; resolves with its exit code and everything it printed. */
function conformance(args: string[], timeoutMs: number): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(path.join(BIN, "conformance"), args, {
      cwd: project.root,
      env: {
        ...process.env,
        PATH: `${BIN}${path.delimiter}${process.env.PATH ?? ""}`,
        NO_COLOR: "1",
        // The suite hands its environment to the client command: worker-client.ts drives this Worker.
        MCP_CONFORMANCE_WORKER_URL: clientDev.url,
        // The suite (fetching /mcp and the metadata document) and the driver trust the Worker's certificate.
        NODE_EXTRA_CA_CERTS: TLS.certPath,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (output += c.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Runs client scenarios CLIENT_CONCURRENCY at a time; the output of each that failed. */
async function clientScenarios(runs: { scenario: string; args: string[] }[]): Promise<string[]> {
  const results = path.join(project.root, "results");
  const failed: string[] = [];
  const queue = [...runs];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const run = await conformance(
        ["client", "--command", CLIENT_COMMAND, "--scenario", next.scenario, ...next.args, "-o", results],
        60_000,
      );
      if (run.code !== 0) failed.push(`${next.scenario}:\n${run.output}`);
    }
  };
  await Promise.all(Array.from({ length: CLIENT_CONCURRENCY }, worker));
  return failed;
}

/** The baseline's entries of one mode, each with the reason written after it. */
async function baselineEntries(mode: "server" | "client", file = BASELINE): Promise<{ scenario: string; reason: string }[]> {
  const lines = (await readFile(file, "utf8")).split("\n");
  const start = lines.findIndex((l) => l.trim() === `${mode}:`);
  const entries: { scenario: string; reason: string }[] = [];
  if (start < 0) return entries;
  for (const line of lines.slice(start + 1)) {
    const m = /^\s+-\s+(\S+)\s*(?:#\s*(.*))?$/.exec(line);
    if (!m) {
      if (/^\S/.test(line)) break;
      continue;
    }
    entries.push({ scenario: m[1]!, reason: (m[2] ?? "").trim() });
  }
  return entries;
}

beforeAll(async () => {
  project = await copyProject();
  const fixtures = path.join(HERE, "tools");
  for (const file of await readdir(fixtures)) await cp(path.join(fixtures, file), path.join(project.root, "tools", file));
  llm = await startMockOpenAi();
  llm.setHandler(callEveryTool);
  const options = {
    cwd: project.root,
    config: path.join(project.root, "wrangler.toml"),
    vars: {
      OPENAI_API_KEY: "test",
      OPENAI_BASE_URL: llm.url,
      OPENAI_MODEL: "mock",
      MAX_RETRY_DELAY_MS: "20",
      // The suite's servers listen on localhost at ports picked per scenario.
      MCP_ALLOWED_URLS: "http://localhost:*/",
    },
  };
  // wrangler's build step (npm run generate:code) writes the registry with the fixtures in it; the second
  // server's build finds it current and rewrites nothing, so the first is not reloaded.
  dev = await startWranglerDev(options);
  // This process trusts the https Worker's certificate for its readiness check.
  tls.setDefaultCACertificates([...tls.getCACertificates("default"), readFileSync(TLS.certPath, "utf8")]);
  clientDev = await startWranglerDev({ ...options, tls: TLS });
}, 120_000);

afterAll(async () => {
  await Promise.all([dev?.stop(), clientDev?.stop()]);
  await llm?.close();
  await project?.remove();
});

describe("the official MCP conformance suite", () => {
  it("gives every baseline entry a reason", async () => {
    const entries = [
      ...(await baselineEntries("server")),
      ...(await baselineEntries("client")),
      ...(await baselineEntries("server", BASELINE_2026)),
      ...(await baselineEntries("client", BASELINE_2026)),
    ];
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) expect(entry.reason, entry.scenario).not.toBe("");
  });

  it("passes its 2025-11-25 server scenarios against /mcp, failing only what the baseline lists", async () => {
    const run = await conformance(
      [
        "server",
        "--url",
        `${dev.url}/mcp`,
        "--spec-version",
        "2025-11-25",
        "--expected-failures",
        BASELINE,
        "-o",
        path.join(project.root, "results"),
      ],
      90_000,
    );
    expect(run.code, run.output).toBe(0);
  }, 100_000);

  it("passes the 2026-07-28 server requirements against /mcp, failing only what its baseline lists", async () => {
    const run = await conformance(
      [
        "server",
        "--url",
        `${dev.url}/mcp`,
        "--requirements",
        "2026-07-28",
        "--expected-failures",
        BASELINE_2026,
        "-o",
        path.join(project.root, "results"),
      ],
      120_000,
    );
    expect(run.code, run.output).toBe(0);
  }, 130_000);

  it("passes its 2025-11-25 client scenarios and the auth suite through the Worker's sessions, failing only what the baseline lists", async () => {
    const failed = await clientScenarios([
      ...CLIENT_SCENARIOS.map((scenario) => ({ scenario, args: ["--expected-failures", BASELINE] })),
      ...AUTH_SUITE.map((scenario) => ({ scenario, args: ["--spec-version", "2025-11-25", "--expected-failures", BASELINE] })),
    ]);
    expect(failed, failed.join("\n\n")).toEqual([]);
  }, 300_000);

  it("passes the 2026-07-28 client requirements through the Worker's sessions, failing only what its baseline lists", async () => {
    const failed = await clientScenarios(
      CLIENT_SCENARIOS_2026.map((scenario) => ({ scenario, args: ["--spec-version", "2026-07-28", "--expected-failures", BASELINE_2026] })),
    );
    expect(failed, failed.join("\n\n")).toEqual([]);
  }, 300_000);

  it("asks the client's user through elicitation before a call that needs approval, and runs it on yes only", async () => {
    const asked: string[] = [];
    let approve = true;
    const client = new Client({ name: "approver", version: "1.0.0" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: "accept", content: { approve } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${dev.url}/mcp`)));
    try {
      const yes = await client.callTool({ name: "test_needs_approval", arguments: { what: "the draft" } });
      expect(yes).toMatchObject({ isError: false, content: [{ type: "text", text: "ran for the draft" }] });
      approve = false;
      const no = await client.callTool({ name: "test_needs_approval", arguments: { what: "the draft" } });
      expect(no.isError).toBe(true);
      expect(asked).toHaveLength(2);
      expect(asked[0]).toContain('"test_needs_approval"');
    } finally {
      await client.close();
    }
  });

  it("lets a tool ask the client's model, and refuses that when the client cannot sample", async () => {
    const prompts: string[] = [];
    const sampler = new Client({ name: "sampler", version: "1.0.0" }, { capabilities: { sampling: {} } });
    sampler.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      const content = request.params.messages[0]!.content;
      const first = Array.isArray(content) ? content[0] : content;
      prompts.push(first?.type === "text" ? first.text : String(first?.type));
      return { role: "assistant", model: "client-model", content: { type: "text", text: "forty-two" } };
    });
    await sampler.connect(new StreamableHTTPClientTransport(new URL(`${dev.url}/mcp`)));
    const plain = new Client({ name: "plain", version: "1.0.0" });
    await plain.connect(new StreamableHTTPClientTransport(new URL(`${dev.url}/mcp`)));
    try {
      const answered = await sampler.callTool({ name: "test_sampling", arguments: { prompt: "the answer?" } });
      expect(answered).toMatchObject({ isError: false, content: [{ type: "text", text: "LLM response: forty-two" }] });
      expect(prompts).toEqual(["the answer?"]);
      const refused = await plain.callTool({ name: "test_sampling", arguments: { prompt: "the answer?" } });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain("no sampling capability");
    } finally {
      await sampler.close();
      await plain.close();
    }
  });

  it("answers a 2025-11-25 elicitation through the session's object, a stream opened with the call", async () => {
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${dev.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify(body),
      });
    const init = await post({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: { elicitation: {} }, clientInfo: { name: "raw", version: "1.0.0" } },
    });
    await init.text();
    const session = { "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" };
    // The session's object has served nothing yet: a stream and a call reach it together.
    const listening = new AbortController();
    const [stream, call] = await Promise.all([
      fetch(`${dev.url}/mcp`, { headers: { accept: "text/event-stream", ...session }, signal: listening.signal }),
      post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "test_elicitation", arguments: { message: "Who?" } } }, session),
    ]);
    expect(stream.status).toBe(200);
    const reader = call.body!.pipeThrough(new TextDecoderStream()).getReader();
    const messages: { id?: number | string; method?: string; result?: unknown }[] = [];
    let buffered = "";
    const next = async (match: (m: (typeof messages)[number]) => boolean) => {
      for (;;) {
        const found = messages.find(match);
        if (found) return found;
        const { value, done } = await reader.read();
        if (done) throw new Error(`the call's stream ended without it: ${JSON.stringify(messages)}`);
        buffered += value;
        const events = buffered.split("\n\n");
        buffered = events.pop()!;
        for (const event of events)
          for (const line of event.split("\n"))
            if (line.startsWith("data:") && line.slice(5).trim()) messages.push(JSON.parse(line.slice(5)));
      }
    };
    const question = await next((m) => m.method === "elicitation/create");
    const answered = await post(
      { jsonrpc: "2.0", id: question.id, result: { action: "accept", content: { username: "ada", email: "ada@example.com" } } },
      session,
    );
    expect(answered.status).toBe(202);
    const result = await next((m) => m.id === 2);
    expect(JSON.stringify(result.result)).toContain('\\"username\\":\\"ada\\"');
    listening.abort();
  });

  it("lets a tool ask a 2025-11-25 client for its roots, on the call's own stream", async () => {
    const client = new Client({ name: "rooted", version: "1.0.0" }, { capabilities: { roots: {} } });
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file:///work/repo", name: "repo" }] }));
    await client.connect(new StreamableHTTPClientTransport(new URL(`${dev.url}/mcp`)));
    const plain = new Client({ name: "plain", version: "1.0.0" });
    await plain.connect(new StreamableHTTPClientTransport(new URL(`${dev.url}/mcp`)));
    try {
      const answered = await client.callTool({ name: "test_input_required_result_list_roots", arguments: {} });
      expect(answered).toMatchObject({ isError: false, content: [{ type: "text", text: "Roots: file:///work/repo" }] });
      const refused = await plain.callTool({ name: "test_input_required_result_list_roots", arguments: {} });
      expect(refused.isError).toBe(true);
    } finally {
      await client.close();
      await plain.close();
    }
  });

  it("connects our client to a 2026-07-28 server without a handshake, answering its elicitation by a second round", async () => {
    const asked: McpElicitation[] = [];
    const seen: string[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = async (input, init) => {
      seen.push(new Headers(init?.headers).get("mcp-method") ?? String(JSON.parse(String(init?.body ?? "{}")).method));
      return realFetch(input, init);
    };
    const connection = new McpConnection(
      { name: "self", url: `${dev.url}/mcp` },
      () => undefined,
      undefined,
      async (question) => {
        asked.push(question);
        return { action: "accept", content: { username: "ada", email: "ada@example.com" } };
      },
    );
    try {
      const tools = await connection.listTools();
      expect(tools.map((t) => t.name)).toContain("test_elicitation");
      const result = await connection.callTool("test_elicitation", { message: "Who are you?" }, {});
      expect(result.content).toEqual([{ type: "text", text: expect.stringContaining('"username":"ada"') }]);
      expect(asked).toEqual([expect.objectContaining({ message: "Who are you?" })]);
      // No initialize: discover, list, and the call's two rounds.
      expect(seen).toEqual(["server/discover", "tools/list", "tools/call", "tools/call"]);
    } finally {
      globalThis.fetch = realFetch;
      await connection.close();
    }
  });

  it("serves annotations, output schemas and structured content from the tools' declarations", async () => {
    const client = new Client({ name: "lister", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${dev.url}/mcp`)));
    try {
      const { tools } = await client.listTools();
      const structured = tools.find((t) => t.name === "test_structured_output");
      expect(structured).toMatchObject({
        annotations: { readOnlyHint: true, openWorldHint: false },
        outputSchema: { type: "object", required: ["celsius"] },
      });
      expect(tools.find((t) => t.name === "test_needs_approval")?.annotations).toEqual({ destructiveHint: true });
      const result = await client.callTool({ name: "test_structured_output", arguments: {} });
      expect(result.structuredContent).toEqual({ celsius: 21.5 });
    } finally {
      await client.close();
    }
  });
});
