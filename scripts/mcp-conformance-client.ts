/**
 * Our MCP client (src/mcp/client/mcp-connection.ts with the OAuth client of src/mcp/oauth/oauth-provider.ts, the code
 * sessions use) as a command the official conformance suite starts: `node … mcp-conformance-client.ts
 * <server-url>`. It connects, lists the tools, calls each once with arguments made from its input schema,
 * and exits 0. Two stand-ins play the parts a session leaves to people: every elicitation is accepted
 * with the requested schema's defaults, and when a server needs authorization the "user" opens the
 * authorization URL (the suite's authorization server approves at once) and the redirect's code and
 * state go through the same completion the Worker's callback route runs. Credentials live in memory
 * (src/mcp/oauth/memory-oauth-records.ts).
 * Run by test/mcp/conformance/conformance.node.test.ts; the suite judges what it saw on the wire.
 */
import { McpAuthRequiredError, McpConnection } from "../src/mcp/client/mcp-connection.ts";
import { McpRpcError } from "../src/mcp/client/modern-client.ts";
import { completeAuthorization, localVault } from "../src/mcp/oauth/oauth-completion.ts";
import { McpOAuthProvider } from "../src/mcp/oauth/oauth-provider.ts";
import { MemoryOAuthRecords } from "../src/mcp/oauth/memory-oauth-records.ts";
import type { McpOAuthRecords } from "../src/mcp/oauth/oauth-store.ts";
import type { McpServerConfig } from "../src/mcp/client/servers-config.ts";

/** Where the suite's authorization server sends the "user" back; never listened on. */
const REDIRECT_URL = "http://localhost:3000/callback";
/** The client id the suite expects from a client that offers a metadata document (auth/basic-cimd). */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";
/** A server that keeps refusing after this many authorizations is refused in turn (no endless loop). */
const MAX_AUTHORIZATIONS = 3;

/** A value of each property's type: enough for a conformance tool, never a real call. */
function argumentsFor(schema: {
  properties?: Record<string, { type?: unknown; enum?: unknown[]; default?: unknown }>;
}): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    if (prop.default !== undefined) args[name] = prop.default;
    else if (Array.isArray(prop.enum) && prop.enum.length > 0) args[name] = prop.enum[0];
    else if (prop.type === "number" || prop.type === "integer") args[name] = Object.keys(args).length + 2;
    else if (prop.type === "boolean") args[name] = true;
    else if (prop.type === "array") args[name] = [];
    else if (prop.type === "object") args[name] = {};
    else args[name] = "conformance";
  }
  return args;
}

/** A client registered beforehand, when the scenario hands one over (auth/pre-registration). */
function preRegisteredClient(): Pick<McpServerConfig, "clientId" | "clientSecret"> {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  const context = raw ? (JSON.parse(raw) as { client_id?: string; client_secret?: string }) : {};
  return context.client_id
    ? { clientId: context.client_id, ...(context.client_secret ? { clientSecret: context.client_secret } : {}) }
    : {};
}

/** The calls a scenario's context names (MCP_CONFORMANCE_CONTEXT's toolCalls), by tool. */
function scenarioToolCalls(): Map<string, Record<string, unknown>> {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  const calls = raw ? (JSON.parse(raw) as { toolCalls?: { name: string; arguments?: Record<string, unknown> }[] }).toolCalls : undefined;
  return new Map((calls ?? []).map((c) => [c.name, c.arguments ?? {}]));
}

/** The user's part: open the authorization URL, follow its redirect to us, complete the flow. */
async function authorizeAsUser(records: McpOAuthRecords, server: McpServerConfig, authorizationUrl: string): Promise<void> {
  const response = await fetch(authorizationUrl, { redirect: "manual" });
  const location = response.headers.get("location");
  if (!location) throw new Error(`the authorization server answered ${response.status} without a redirect`);
  const back = new URL(location);
  if (`${back.origin}${back.pathname}` !== REDIRECT_URL)
    throw new Error(`the authorization server redirected to ${back.origin}${back.pathname}, not to our callback`);
  const done = await completeAuthorization(
    records,
    back.searchParams.get("state") ?? "",
    back.searchParams.get("code") ?? "",
    () => server,
    back.searchParams.get("iss") ?? undefined,
  );
  if (!done.ok) throw new Error(done.message);
}

async function main(): Promise<void> {
  const url = process.argv.at(-1);
  if (!url || !/^https?:\/\//.test(url)) throw new Error("usage: mcp-conformance-client.ts <server-url>");
  const server: McpServerConfig = { name: "conformance", url, ...preRegisteredClient() };
  const records = new MemoryOAuthRecords();
  const auth = new McpOAuthProvider(server, {
    vault: localVault(records),
    redirectUrl: REDIRECT_URL,
    clientMetadataUrl: CLIENT_METADATA_URL,
    stateRoute: "w",
    sessionId: "conformance",
  });
  // Empty content: the connection declares applyDefaults, so the SDK fills in each field's default.
  const connection = new McpConnection(
    server,
    () => undefined,
    auth,
    async () => ({ action: "accept", content: {} }),
  );
  let authorizations = 0;
  /** Runs `use`; when the server needs authorization, authorizes as the user and runs it again. */
  const withAuthorization = async <T>(use: () => Promise<T>): Promise<T> => {
    for (;;) {
      try {
        return await use();
      } catch (err) {
        if (!(err instanceof McpAuthRequiredError) || !err.authorizationUrl || authorizations >= MAX_AUTHORIZATIONS) throw err;
        authorizations++;
        await authorizeAsUser(records, server, err.authorizationUrl);
        await connection.reconnect();
      }
    }
  };
  try {
    const tools = await withAuthorization(() => connection.listTools());
    // A scenario may name the arguments of its calls (http-custom-headers); a listed tool is called with those.
    const given = scenarioToolCalls();
    for (const tool of tools) {
      const args = given.get(tool.name) ?? argumentsFor(tool.inputSchema as Parameters<typeof argumentsFor>[0]);
      try {
        const result = await withAuthorization(() => connection.callTool(tool.name, args, {}));
        console.log(`${tool.name}: ${JSON.stringify(result.content).slice(0, 500)}`);
      } catch (err) {
        // A server's JSON-RPC answer to one call (a test server that lists a tool it does not run) ends only that call.
        if (!(err instanceof McpRpcError) || err.code === undefined) throw err;
        console.error(`${tool.name}: error ${err.code}: ${err.message}`);
      }
    }
  } finally {
    await connection.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
