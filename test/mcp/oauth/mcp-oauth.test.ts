import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import type { OAuthMcpState } from "../../support/oauth-mcp-server.ts";
import { createSession, llmRequests, openEvents, script, send, snapshotOf, type SseEvent } from "../../session/support.ts";
import { toolsOnceListed } from "../workers/support.ts";

const oauthState = async (): Promise<OAuthMcpState> => (await fetch(`${inject("oauthMcpUrl")}/control/state`)).json();

/** Follows the authorization URL as the user's browser would: the test server approves at once. */
async function approve(authorizationUrl: string): Promise<URL> {
  const res = await fetch(authorizationUrl, { redirect: "manual" });
  expect(res.status).toBe(302);
  return new URL(res.headers.get("location")!);
}

const callback = (location: URL) => SELF.fetch(location.href);

const registry = async () => ((await (await SELF.fetch("http://edge.test/v1/tools")).json()) as { mcp: Record<string, unknown>[] }).mcp;

describe("An MCP server behind OAuth", () => {
  it("asks for authorization, takes the callback, and then serves its tools in the same session, refreshing expired tokens", async () => {
    const before = await oauthState(); // the server is shared with the other file of this project
    const session = await createSession({ mcpServers: ["secure"] });
    const events = await openEvents(session);
    const seen = await events.until("mcpAuthRequired");
    const required = seen.at(-1)!.json as unknown as { server: string; authorizationUrl: string };
    expect(required.server).toBe("secure");
    // A 401 is not an unreachable server: no error event, and no fallback to the old transport.
    expect(seen.filter((e) => e.event === "error")).toEqual([]);
    const authorizationUrl = new URL(required.authorizationUrl);
    expect(authorizationUrl.origin).toBe(inject("oauthMcpUrl"));
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizationUrl.searchParams.get("redirect_uri")).toBe("http://edge.test/v1/mcp/oauth/callback");
    expect((await oauthState()).registrations).toBeGreaterThan(before.registrations); // dynamic client registration

    // The registry says so too, without starting a flow of its own.
    expect((await registry()).find((s) => s.server === "secure")).toEqual({ server: "secure", requireApproval: false, authRequired: true });

    let snapshot = await snapshotOf(session);
    expect(snapshot.tools.filter((t) => t.startsWith("secure_"))).toEqual([]);
    expect(snapshot.mcpServers).toEqual([
      { name: "secure", source: "deployer", status: "authRequired", authorizationUrl: required.authorizationUrl },
    ]);

    const location = await approve(required.authorizationUrl);
    expect(`${location.origin}${location.pathname}`).toBe("http://edge.test/v1/mcp/oauth/callback");
    const done = await callback(location);
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("secure");
    expect((await oauthState()).grants.authorization_code).toBe(before.grants.authorization_code + 1);
    expect((await callback(location)).status).toBe(400); // a state completes one flow, once

    // The same session, no new one: the tools are there now.
    await toolsOnceListed(session, ["secure_whoami", "secure_note"]);
    snapshot = await snapshotOf(session);
    expect(snapshot.mcpServers).toEqual([{ name: "secure", source: "deployer", status: "ready" }]);
    // The registry lists its tools with the Worker's tokens.
    expect((await registry()).find((s) => s.server === "secure")).toMatchObject({
      tools: expect.arrayContaining([expect.objectContaining({ name: "secure_whoami" })]),
    });

    await script(session, { toolCalls: [{ id: "w1", name: "secure_whoami", arguments: {} }] }, { text: "first" });
    await send(session, "who am I?");
    let end = (await events.until("toolExecEnd")).at(-1)!;
    expect(end.json).toMatchObject({
      toolName: "secure_whoami",
      isError: false,
      result: { content: [{ text: "whoami called by an authorized client" }] },
    });
    await events.until("runEnd");

    // The access token expires: the next call gets a 401, refreshes, and goes through.
    await fetch(`${inject("oauthMcpUrl")}/control/expire`, { method: "POST" });
    await script(session, { toolCalls: [{ id: "w2", name: "secure_whoami", arguments: {} }] }, { text: "second" });
    await send(session, "again");
    end = (await events.until("toolExecEnd")).at(-1)!;
    expect(end.json).toMatchObject({ toolName: "secure_whoami", isError: false });
    const after = await oauthState();
    expect(after.grants.refresh_token).toBeGreaterThan(before.grants.refresh_token); // the POST and the GET stream may each refresh
    expect(after.grants.authorization_code).toBe(before.grants.authorization_code + 1); // no new authorization was needed
    expect(after.calls.filter((c) => c.tool === "whoami").length - before.calls.filter((c) => c.tool === "whoami").length).toBe(2);
    const all = [...seen, ...(await events.until("runEnd"))];

    // Tokens are never in events, the snapshot or the LLM's requests.
    const visible = JSON.stringify([all.map((e: SseEvent) => e.json), await snapshotOf(session), await llmRequests(session)]);
    expect(visible).not.toMatch(/access_token|refresh_token|code_verifier/);

    // The Worker holds the deployer's server's tokens: a new session uses them without asking again.
    const other = await createSession({ mcpServers: ["secure"] });
    await toolsOnceListed(other, ["secure_whoami"]);
    await events.cancel();
  });

  it("asks the user again when a tool needs more scope than was granted, and then runs it", async () => {
    const session = await createSession({ mcpServers: ["secure"] }); // the Worker holds tokens from the test above
    const events = await openEvents(session);
    await toolsOnceListed(session, ["secure_publish"]);
    await script(session, { toolCalls: [{ id: "p1", name: "secure_publish", arguments: {} }] }, { text: "asked" });
    await send(session, "publish");
    const seen = await events.until("runEnd");
    expect(seen.find((e) => e.event === "toolExecEnd")!.json).toMatchObject({ toolName: "secure_publish", isError: true });
    // A refresh cannot widen the scope: the user is sent to authorize the scope the server named.
    const required = seen.find((e) => e.event === "mcpAuthRequired")!.json as unknown as { authorizationUrl: string };
    expect(new URL(required.authorizationUrl).searchParams.get("scope")).toBe("notes:publish");

    expect((await callback(await approve(required.authorizationUrl))).status).toBe(200);
    await toolsOnceListed(session, ["secure_publish"]);
    await script(session, { toolCalls: [{ id: "p2", name: "secure_publish", arguments: {} }] }, { text: "published" });
    await send(session, "again");
    expect((await events.until("toolExecEnd")).at(-1)!.json).toMatchObject({ toolName: "secure_publish", isError: false });
    await events.until("runEnd");
    await events.cancel();
  });

  it("serves its client metadata document, whose URL is its client id", async () => {
    const res = await SELF.fetch("https://agent.example/v1/mcp/oauth/client-metadata.json");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      client_id: "https://agent.example/v1/mcp/oauth/client-metadata.json",
      redirect_uris: ["https://agent.example/v1/mcp/oauth/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "none",
    });
  });

  it("completes nothing for a state no holder issued", async () => {
    const session = await createSession({ mcpServers: [] });
    const forged = [
      "w.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      `s.${session.id}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`,
      "x",
      `s.${session.id}`,
    ];
    for (const state of forged) {
      const res = await SELF.fetch(`http://edge.test/v1/mcp/oauth/callback?state=${encodeURIComponent(state)}&code=abc`);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("bad_request");
    }
  });
});
