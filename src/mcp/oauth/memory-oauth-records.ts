/**
 * The records a credential holder keeps (oauth-store.ts) in memory, for one process: what a Node host
 * of the MCP client would use and what tests read back. The Worker never
 * imports it; its records live in Durable Object SQLite. Keys are `<server>/<kind>`; flows by state hash.
 */
import type { McpOAuthRecords, OAuthRecordKind, PendingFlow } from "./oauth-store.ts";

export class MemoryOAuthRecords implements McpOAuthRecords {
  readonly records = new Map<string, string>();
  readonly flows = new Map<string, PendingFlow>();

  read(server: string, kind: OAuthRecordKind): string | undefined {
    return this.records.get(`${server}/${kind}`);
  }

  write(server: string, kind: OAuthRecordKind, value: string): void {
    this.records.set(`${server}/${kind}`, value);
  }

  drop(server: string, kinds: readonly OAuthRecordKind[]): void {
    for (const kind of kinds) this.records.delete(`${server}/${kind}`);
  }

  dropIf(server: string, kind: OAuthRecordKind, expected: string): void {
    if (this.records.get(`${server}/${kind}`) === expected) this.records.delete(`${server}/${kind}`);
  }

  saveFlow(stateHash: string, flow: PendingFlow): void {
    this.flows.set(stateHash, flow);
  }

  takeFlow(stateHash: string): PendingFlow | undefined {
    const flow = this.flows.get(stateHash);
    this.flows.delete(stateHash);
    return flow && flow.expiresAt > Date.now() ? flow : undefined;
  }
}
