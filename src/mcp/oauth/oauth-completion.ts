/**
 * The second half of an MCP OAuth flow, run by whichever Durable Object holds the flow (the Worker's
 * McpCredentials object or the session): the callback's `state` is looked up by its hash (one-time,
 * expiring), and the SDK's `auth()` exchanges the code with the stored PKCE verifier and stores the
 * tokens. A state this object never issued completes nothing. Before the code goes anywhere, the
 * response's `iss` is compared, as a plain string, with the issuer the flow recorded (RFC 9207): another
 * issuer, an `iss` the flow cannot check, or none where the metadata promised one refuses the code, which
 * is never sent to a token endpoint. Errors name the server, never a secret.
 */
import { sha256Hex } from "../../credentials.ts";
import { clientMetadataUrlOf, McpOAuthProvider, type McpCredentialVault } from "./oauth-provider.ts";
import type { McpOAuthRecords, PendingFlow } from "./oauth-store.ts";
import type { McpServerConfig } from "../client/servers-config.ts";

export type AuthCompletion = { ok: true; server: string; sessionId: string } | { ok: false; status: 400 | 404 | 502; message: string };

/** A vault over this object's own store (each call synchronous storage). */
export function localVault(store: McpOAuthRecords): McpCredentialVault {
  return {
    read: async (server, kind) => store.read(server, kind),
    write: async (server, kind, value) => store.write(server, kind, value),
    drop: async (server, kinds) => store.drop(server, kinds),
    dropIf: async (server, kind, expected) => store.dropIf(server, kind, expected),
    saveFlow: async (hash, flow) => store.saveFlow(hash, flow),
  };
}

export async function completeAuthorization(
  store: McpOAuthRecords,
  state: string,
  code: string,
  findServer: (name: string) => McpServerConfig | undefined,
  iss?: string,
): Promise<AuthCompletion> {
  const flow = store.takeFlow(await sha256Hex(state));
  if (!flow) return { ok: false, status: 400, message: "Unknown or expired authorization state; start again from the Connect link" };
  const mixUp = issuerProblem(flow, iss);
  if (mixUp) return { ok: false, status: 400, message: `MCP server "${flow.server}": ${mixUp}; start again from the Connect link` };
  const server = findServer(flow.server);
  if (!server) return { ok: false, status: 404, message: `MCP server "${flow.server}" is no longer configured` };
  const clientMetadataUrl = clientMetadataUrlOf(new URL(flow.redirectUrl).origin);
  const provider = new McpOAuthProvider(server, {
    vault: localVault(store),
    redirectUrl: flow.redirectUrl,
    ...(clientMetadataUrl ? { clientMetadataUrl } : {}),
    stateRoute: "",
    sessionId: flow.sessionId,
    verifier: flow.verifier,
    ...(flow.scope !== undefined ? { requestedScope: flow.scope } : {}),
  });
  try {
    // Loaded here, not at start-up: only an OAuth callback needs the SDK's auth flow.
    const { auth } = await import("@modelcontextprotocol/sdk/client/auth.js");
    const result = await auth(provider, { serverUrl: server.url, authorizationCode: code });
    if (result !== "AUTHORIZED")
      return { ok: false, status: 502, message: `MCP server "${server.name}": the authorization server did not issue tokens` };
  } catch (err) {
    return {
      ok: false,
      status: 502,
      message: `MCP server "${server.name}": exchanging the authorization code failed: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  return { ok: true, server: server.name, sessionId: flow.sessionId };
}

/** Why an authorization response must be refused for its `iss`, or undefined when it may be used. */
function issuerProblem(flow: PendingFlow, iss: string | undefined): string | undefined {
  if (iss === undefined) return flow.issRequired ? "the authorization response has no iss, which its server promised" : undefined;
  if (flow.issuer === undefined) return "the authorization response names an issuer, but none was discovered to compare it with";
  // Exact comparison: RFC 9207 allows no normalisation (a trailing slash is another issuer).
  return iss === flow.issuer
    ? undefined
    : `the authorization response comes from issuer ${JSON.stringify(iss)}, not ${JSON.stringify(flow.issuer)}`;
}
