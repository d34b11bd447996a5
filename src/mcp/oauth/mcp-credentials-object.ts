/**
 * McpCredentials: the Durable Object (one instance, named WORKER_CREDENTIALS) holding the OAuth
 * credentials of the deployer's MCP servers, which belong to the Worker, not to a session. Sessions
 * read and write them over RPC through `workerVault`; the OAuth callback completes Worker-held flows
 * here, then tells the session that started the flow. Nothing here is returned by an HTTP route.
 */
import { DurableObject } from "cloudflare:workers";
import type { AppEnv } from "../../env.ts";
import { completeAuthorization, type AuthCompletion } from "./oauth-completion.ts";
import type { McpCredentialVault } from "./oauth-provider.ts";
import { MCP_OAUTH_SCHEMA, McpOAuthStore, type OAuthRecordKind, type PendingFlow } from "./oauth-store.ts";
import { readMcpServers } from "../client/servers-config.ts";

/** The one instance's name. */
export const WORKER_CREDENTIALS = "worker-mcp-credentials";

export class McpCredentials extends DurableObject<AppEnv> {
  private readonly store: McpOAuthStore;

  constructor(ctx: DurableObjectState, env: AppEnv) {
    super(ctx, env);
    ctx.storage.sql.exec(MCP_OAUTH_SCHEMA); // idempotent; the object's only tables
    this.store = new McpOAuthStore(ctx.storage.sql);
  }

  read(server: string, kind: OAuthRecordKind): string | undefined {
    return this.store.read(server, kind);
  }

  write(server: string, kind: OAuthRecordKind, value: string): void {
    this.store.write(server, kind, value);
  }

  drop(server: string, kinds: OAuthRecordKind[]): void {
    this.store.drop(server, kinds);
  }

  dropIf(server: string, kind: OAuthRecordKind, expected: string): void {
    this.store.dropIf(server, kind, expected);
  }

  saveFlow(stateHash: string, flow: PendingFlow): void {
    this.store.saveFlow(stateHash, flow);
  }

  complete(state: string, code: string, iss?: string): Promise<AuthCompletion> {
    const parsed = readMcpServers(this.env);
    return completeAuthorization(
      this.store,
      state,
      code,
      (name) => (parsed.ok ? parsed.servers.find((s) => s.name === name) : undefined),
      iss,
    );
  }
}

/** The Worker's credentials as a vault, for a session's providers of deployer-listed servers. */
export function workerVault(env: Pick<AppEnv, "MCP_CREDENTIALS">): McpCredentialVault {
  const stub = () => env.MCP_CREDENTIALS.get(env.MCP_CREDENTIALS.idFromName(WORKER_CREDENTIALS));
  return {
    read: async (server, kind) => (await stub().read(server, kind)) ?? undefined,
    write: async (server, kind, value) => void (await stub().write(server, kind, value)),
    drop: async (server, kinds) => void (await stub().drop(server, kinds)),
    dropIf: async (server, kind, expected) => void (await stub().dropIf(server, kind, expected)),
    saveFlow: async (hash, flow) => void (await stub().saveFlow(hash, flow)),
  };
}
