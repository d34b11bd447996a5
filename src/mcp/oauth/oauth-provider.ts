/**
 * The SDK's OAuthClientProvider for one MCP server, over a credential vault (the Worker's McpCredentials
 * object for deployer-listed servers, the session's own storage for servers it added). The SDK's `auth()`
 * drives discovery, dynamic registration, PKCE and refresh; this class only keeps what it hands over.
 * `state` is 32 random bytes behind a routing prefix (who holds the flow); the flow is stored under the
 * state's hash with the verifier and the session that started it, so only that state completes it.
 * Mix-up defence (RFC 8414 section 3.3, RFC 9207): metadata whose `issuer` is not the authorization server
 * it was fetched for is refused before any of its endpoints is used, and the flow records the issuer so
 * the callback (oauth-completion.ts) refuses a response whose `iss` is another, or lacks a promised one.
 */
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { sha256Hex } from "../../credentials.ts";
import { FLOW_TTL_MS, type OAuthRecordKind, type PendingFlow } from "./oauth-store.ts";
import type { McpServerConfig } from "../client/servers-config.ts";

/** What a provider needs of where credentials live; each method is one storage call (or one RPC). */
export interface McpCredentialVault {
  read(server: string, kind: OAuthRecordKind): Promise<string | undefined>;
  write(server: string, kind: OAuthRecordKind, value: string): Promise<void>;
  drop(server: string, kinds: OAuthRecordKind[]): Promise<void>;
  /** Drops the record only while it still holds `expected` (another session may have replaced it). */
  dropIf(server: string, kind: OAuthRecordKind, expected: string): Promise<void>;
  saveFlow(stateHash: string, flow: PendingFlow): Promise<void>;
}

export type McpOAuthOptions = {
  vault: McpCredentialVault;
  /** `<origin>/v1/mcp/oauth/callback` of this Worker. */
  redirectUrl: string;
  /**
   * `<origin>/v1/mcp/oauth/client-metadata.json` when the origin is https: the client id offered to an
   * authorization server that takes Client ID Metadata Documents, instead of registering a client.
   */
  clientMetadataUrl?: string;
  /** Routes the callback to the holder of the flow: `w` (the Worker's object) or `s.<sessionId>`. */
  stateRoute: string;
  /** The session that starts flows through this provider (told when a Worker-held flow completes). */
  sessionId: string;
  /** Set only when completing a flow: the verifier stored with it. */
  verifier?: string;
  /** Set only when completing a flow: the scope it asked for (what the tokens carry unless they say). */
  requestedScope?: string;
};

/**
 * The OAuth callback's path: where authorization servers send the user back. The redirect URL is this under
 * the Worker's origin, and pre-registered clients list it (README "Connecting an OAuth MCP server"), so it stays fixed.
 */
export const MCP_OAUTH_CALLBACK_PATH = "/v1/mcp/oauth/callback";
/** Where the Worker serves its Client ID Metadata Document (the document's URL is the client id). */
export const MCP_CLIENT_METADATA_PATH = "/v1/mcp/oauth/client-metadata.json";

/**
 * The client id this Worker offers from `origin` as a Client ID Metadata Document. An authorization server
 * fetches the document, so only a public (https) origin can offer one. Starting a flow and completing it
 * must agree on it: the code is exchanged under the client id the flow was started with.
 */
export function clientMetadataUrlOf(origin: string): string | undefined {
  return origin.startsWith("https://") ? `${origin}${MCP_CLIENT_METADATA_PATH}` : undefined;
}

/** What this Worker tells an authorization server about itself, registering or in its metadata document. */
export function clientMetadataFor(redirectUrl: string): OAuthClientMetadata {
  const metadata = {
    client_name: "edge-agent",
    // The Worker is a web application (SEP-837 asks every registration to say which kind of client it is).
    application_type: "web",
    redirect_uris: [redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
  // The SDK's type predates application_type; it sends the metadata as given.
  return metadata as OAuthClientMetadata;
}

export class McpOAuthProvider implements OAuthClientProvider {
  /** Set when the SDK decided the user must authorize: the URL to send them to. */
  authorizationUrl?: string;
  private pendingState?: string;
  private pendingVerifier?: string;
  /** Tokens as last read (the transport asks before every request, and the vault may be an RPC away);
   * dropped when a connection opens and when `auth()` starts (discoveryState()), so refresh reads fresh. */
  private cachedTokens?: { value: OAuthTokens | undefined };
  /** The stored text of the tokens this provider last read or wrote: what it may invalidate. */
  private tokensText?: string;
  /** Set when the server asked for more scope than the tokens carry: a refresh cannot add scope. */
  private steppingUp = false;
  /** Whether the SDK ran its OAuth flow since the connection opened (a 401 came, and was answered). */
  authAttempted = false;
  /** The discovery the running `auth()` uses (read or saved): the flow it starts records its issuer. */
  private discovery?: OAuthDiscoveryState;

  constructor(
    private readonly server: McpServerConfig,
    private readonly options: McpOAuthOptions,
  ) {}

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return clientMetadataFor(this.options.redirectUrl);
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl;
  }

  state(): string {
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    this.pendingState = `${this.options.stateRoute}.${btoa(String.fromCharCode(...bytes))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "")}`;
    return this.pendingState;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    if (this.server.clientId)
      return { client_id: this.server.clientId, ...(this.server.clientSecret ? { client_secret: this.server.clientSecret } : {}) };
    const stored = await this.readJson<OAuthClientInformationMixed & { redirect_uris?: string[] }>("client");
    // A client made for another origin (the Worker moved) cannot complete a flow here: register again.
    if (stored?.redirect_uris && !stored.redirect_uris.includes(this.options.redirectUrl)) return undefined;
    if (stored?.client_id.endsWith(MCP_CLIENT_METADATA_PATH) && stored.client_id !== this.options.clientMetadataUrl) return undefined;
    return stored;
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    if (this.server.clientId) return; // pre-registered in MCP_SERVERS: nothing of ours to keep
    await this.options.vault.write(this.server.name, "client", JSON.stringify(info));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    if (!this.cachedTokens) {
      this.tokensText = await this.options.vault.read(this.server.name, "tokens");
      this.cachedTokens = { value: this.tokensText === undefined ? undefined : (JSON.parse(this.tokensText) as OAuthTokens) };
    }
    const tokens = this.cachedTokens.value;
    // Without its refresh token the SDK asks the user again, for the scope the server named.
    if (this.steppingUp && tokens?.refresh_token) return { ...tokens, refresh_token: undefined };
    return tokens;
  }

  /** The scope to ask for on a step-up: the scope the tokens held now carry, with the challenged one added. */
  async stepUpScope(challenged: string | undefined): Promise<string | undefined> {
    const granted = (await this.tokens())?.scope;
    if (!granted || !challenged) return challenged ?? granted;
    // Scope tokens as RFC 6749 section 3.3 spells them (no quote, no backslash): each goes into a header.
    const union = new Set([...granted.split(" "), ...challenged.split(" ")].filter((s) => /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s)));
    return [...union].join(" ");
  }

  /**
   * The server answered 403 insufficient_scope: the SDK's next `auth()` should send the user to authorize
   * the larger scope rather than refresh (which keeps the old scope and would be refused again).
   */
  stepUp(): void {
    this.steppingUp = true;
  }

  async saveTokens(given: OAuthTokens): Promise<void> {
    this.steppingUp = false;
    // A token response without scope was granted the scope asked for (RFC 6749 section 5.1): kept, so a
    // later step-up asks for it again with the new one.
    const scope = given.scope ?? this.options.requestedScope;
    const tokens = scope === undefined ? given : { ...given, scope };
    this.tokensText = JSON.stringify(tokens);
    await this.options.vault.write(this.server.name, "tokens", this.tokensText);
    this.cachedTokens = { value: tokens };
  }

  saveCodeVerifier(verifier: string): void {
    this.pendingVerifier = verifier;
  }

  codeVerifier(): string {
    if (!this.options.verifier) throw new Error("no authorization is in progress here");
    return this.options.verifier;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    if (!this.pendingState || !this.pendingVerifier) throw new Error("authorization started without state or verifier");
    const flow: PendingFlow = {
      server: this.server.name,
      sessionId: this.options.sessionId,
      verifier: this.pendingVerifier,
      redirectUrl: this.options.redirectUrl,
      expiresAt: Date.now() + FLOW_TTL_MS,
      ...issuerOf(this.discovery),
      ...(url.searchParams.get("scope") ? { scope: url.searchParams.get("scope")! } : {}),
    };
    await this.options.vault.saveFlow(await sha256Hex(this.pendingState), flow);
    this.authorizationUrl = url.href;
    this.steppingUp = false;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    const kinds: OAuthRecordKind[] = scope === "all" ? ["client", "discovery"] : scope === "verifier" || scope === "tokens" ? [] : [scope];
    if (scope === "all" || scope === "tokens") {
      // Sessions share the Worker's tokens: a refresh token rotated by another session fails here with
      // invalid_grant, and dropping what is stored now would throw away that session's fresh tokens.
      if (this.tokensText !== undefined) await this.options.vault.dropIf(this.server.name, "tokens", this.tokensText);
      this.cachedTokens = undefined;
      this.tokensText = undefined;
    }
    if (kinds.length > 0) await this.options.vault.drop(this.server.name, kinds);
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    // The SDK's auth() asks this first: a flow has started.
    this.authAttempted = true;
    this.cachedTokens = undefined;
    // Only a callback completes a flow on the discovery that started it. Every other run discovers again:
    // a server may have moved to another authorization server (SEP-2352), and the SDK then registers
    // with that one instead of presenting it the client and tokens of the old (they are stamped with
    // their issuer). It costs two metadata requests per authorization run, which only a 401 starts.
    if (this.options.verifier === undefined) {
      this.discovery = undefined;
      return undefined;
    }
    const stored = await this.readJson<OAuthDiscoveryState>("discovery");
    // Stored before the issuer was checked, or by a holder that did not: discovered again, and checked.
    this.discovery = stored && metadataIssuerProblem(stored) === undefined ? stored : undefined;
    return this.discovery;
  }

  /** The SDK saves what it discovered before it registers or sends anyone to authorize: checked here. */
  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    const problem = metadataIssuerProblem(state);
    if (problem) {
      this.discovery = undefined;
      await this.options.vault.drop(this.server.name, ["discovery"]);
      throw new Error(`MCP server "${this.server.name}": ${problem}`);
    }
    this.discovery = state;
    await this.options.vault.write(this.server.name, "discovery", JSON.stringify(state));
  }

  /** A connection opens: only its own redirect counts, and tokens a callback stored meanwhile are read. */
  beginConnection(): void {
    this.authorizationUrl = undefined;
    this.cachedTokens = undefined;
    this.authAttempted = false;
  }

  /** True when tokens are stored for this server (another session may have completed the flow). */
  async hasTokens(): Promise<boolean> {
    this.cachedTokens = undefined; // re-read: tokens() fills it again
    return (await this.tokens()) !== undefined;
  }

  private async readJson<T>(kind: OAuthRecordKind): Promise<T | undefined> {
    const text = await this.options.vault.read(this.server.name, kind);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }
}

/**
 * Why discovered metadata must not be used, or undefined when it may: its `issuer` must name the
 * authorization server whose well-known URL served it (RFC 8414 section 3.3), else a server could send
 * the client to another's endpoints. The SDK writes that server's URL through `new URL()`, which adds a
 * slash to a bare origin and lowercases scheme and host; both spellings build the same well-known URL.
 */
export function metadataIssuerProblem(state: OAuthDiscoveryState): string | undefined {
  const issuer = state.authorizationServerMetadata?.issuer;
  if (issuer === undefined) return undefined; // no metadata: the 2025-03-26 endpoint fallback
  const expected = state.authorizationServerUrl;
  if (sameAuthorizationServer(issuer, expected)) return undefined;
  return `the authorization server metadata names issuer ${JSON.stringify(issuer)}, not ${JSON.stringify(expected)} where it was found; refused`;
}

function sameAuthorizationServer(issuer: string, url: string): boolean {
  if (issuer === url) return true;
  try {
    const a = new URL(issuer).href;
    const b = new URL(url).href;
    return a === b || a === `${b}/` || b === `${a}/`;
  } catch {
    return false;
  }
}

/** What a flow records of the issuer it expects back, from the checked metadata. */
function issuerOf(discovery: OAuthDiscoveryState | undefined): Pick<PendingFlow, "issuer" | "issRequired"> {
  const metadata = discovery?.authorizationServerMetadata as
    | { issuer?: string; authorization_response_iss_parameter_supported?: boolean }
    | undefined;
  if (typeof metadata?.issuer !== "string") return {};
  return { issuer: metadata.issuer, ...(metadata.authorization_response_iss_parameter_supported === true ? { issRequired: true } : {}) };
}
