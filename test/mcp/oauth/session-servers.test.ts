import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import { api, createSession, llmRequests, openEvents, script, send, snapshotOf, type TestSession } from "../../session/support.ts";
import { toolsOnceListed, waitFor } from "../workers/support.ts";

const base = () => inject("oauthMcpUrl");
const addServer = (session: TestSession, json: unknown) =>
  api(`/v1/sessions/${session.id}/mcp-servers`, { method: "POST", key: session.key, json });

describe("MCP servers a session adds", () => {
  it("refuses URLs outside MCP_ALLOWED_URLS, however the text resembles an allowed prefix", async () => {
    const session = await createSession({ mcpServers: [] });
    const port = new URL(base()).port;
    for (const url of [
      `${base()}/other/mcp`,
      `${base()}/openx/mcp`,
      `http://127.0.0.1:${port}@evil.example/open/a/mcp`,
      `http://127.0.0.1.evil.example:${port}/open/a/mcp`,
      `https://127.0.0.1:${port}/open/a/mcp`,
      `${base()}/mcpx`,
      "not a url",
    ]) {
      const res = await addServer(session, { name: "x", url });
      expect(res.status, url).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("forbidden");
    }
    expect((await snapshotOf(session)).mcpServers).toEqual([]);
  });

  it("lists an added server in the snapshot without its headers or client secret, serves its tools, and removes them on DELETE", async () => {
    const session = await createSession({ mcpServers: [] });
    const url = `${base()}/open/notes/mcp`;
    const lone = await addServer(session, { name: "notes", url, clientSecret: "no-id" });
    expect(lone.status).toBe(400);
    expect(await lone.text()).toContain("clientSecret needs its clientId");
    const res = await addServer(session, {
      name: "notes",
      url,
      headers: { "x-secret": "do-not-show" },
      clientId: "registered-app",
      clientSecret: "do-not-show-either",
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ name: "notes", source: "session", status: "ready", url });
    expect(await toolsOnceListed(session, ["notes_whoami", "notes_note"])).toEqual(expect.arrayContaining(["notes_note"]));
    const snapshot = await snapshotOf(session);
    expect(snapshot.mcpServers).toEqual([{ name: "notes", source: "session", status: "ready", url }]);
    expect(JSON.stringify(snapshot)).not.toContain("do-not-show");
    expect(JSON.stringify(snapshot)).not.toContain("registered-app");

    expect((await addServer(session, { name: "notes", url })).status).toBe(409);
    const gone = await api(`/v1/sessions/${session.id}/mcp-servers/notes`, { method: "DELETE", key: session.key });
    expect(gone.status).toBe(200);
    const after = await snapshotOf(session);
    expect(after.tools.filter((t) => t.startsWith("notes_"))).toEqual([]);
    expect(after.mcpServers).toEqual([]);
    expect((await api(`/v1/sessions/${session.id}/mcp-servers/notes`, { method: "DELETE", key: session.key })).status).toBe(404);
    // Another session's key cannot add to this one: it hears what an unknown session answers.
    const other = await createSession({ mcpServers: [] });
    expect((await api(`/v1/sessions/${session.id}/mcp-servers`, { method: "POST", key: other.key, json: { name: "y", url } })).status).toBe(
      404,
    );
  });

  it("caps the servers one session may add", async () => {
    const session = await createSession({ mcpServers: [] });
    for (let i = 0; i < 8; i++) expect((await addServer(session, { name: `s${i}`, url: `${base()}/open/s${i}/mcp` })).status).toBe(201);
    const over = await addServer(session, { name: "s8", url: `${base()}/open/s8/mcp` });
    expect(over.status).toBe(429);
    expect(((await over.json()) as { error: { message: string } }).error.message).toContain("at most 8");
  });

  it("flags a tool whose definition changed under the same name before the model gets it", async () => {
    const session = await createSession({ mcpServers: [] });
    // Through the client SDK this time.
    expect(await session.handle.addMcpServer({ name: "drifty", url: `${base()}/open/drifty/mcp` })).toMatchObject({
      name: "drifty",
      status: "ready",
    });
    const events = await openEvents(session);
    await fetch(`${base()}/control/drift`, { method: "POST" });
    const changed = (await events.until("mcpToolsChanged")).at(-1)!;
    expect(changed.json).toMatchObject({ server: "drifty", changed: ["note"], added: [], removed: [] });
    await script(session, { text: "ok" });
    await send(session, "hi");
    await events.until("runEnd");
    const tools = JSON.stringify((await llmRequests(session))[0]!.body);
    expect(tools).toContain("evil.example");
    await events.cancel();
    expect(await session.handle.removeMcpServer("drifty")).toEqual({ removed: "drifty" });
  });

  it("keeps OAuth tokens of a server it added to itself: another session's state cannot complete its flow", async () => {
    const owner = await createSession({ mcpServers: [] });
    const stranger = await createSession({ mcpServers: [] });
    const res = await addServer(owner, { name: "own", url: `${base()}/mcp` });
    expect(res.status).toBe(201);
    const view = (await res.json()) as { status: string; authorizationUrl: string };
    expect(view.status).toBe("authRequired");
    const approved = await fetch(view.authorizationUrl, { redirect: "manual" });
    const location = new URL(approved.headers.get("location")!);
    const state = location.searchParams.get("state")!;
    expect(state.startsWith(`s.${owner.id}.`)).toBe(true);

    // The same secret routed to another session completes nothing there.
    const misrouted = new URL(location);
    misrouted.searchParams.set("state", state.replace(owner.id, stranger.id));
    expect((await SELF.fetch(misrouted.href)).status).toBe(400);

    expect((await SELF.fetch(location.href)).status).toBe(200);
    expect((await SELF.fetch(location.href)).status).toBe(400); // one-time
    await toolsOnceListed(owner, ["own_whoami"]);

    // The stranger adding the same server is asked to authorize: the owner's tokens are the owner's.
    const theirs = await addServer(stranger, { name: "own", url: `${base()}/mcp` });
    expect(((await theirs.json()) as { status: string }).status).toBe("authRequired");
    await waitFor(async () => (await snapshotOf(stranger)).mcpServers[0]?.status === "authRequired");
  });

  it("refuses an authorization response naming another issuer (RFC 9207), before its code reaches the token endpoint", async () => {
    const session = await createSession({ mcpServers: [] });
    const view = (await (await addServer(session, { name: "mixed", url: `${base()}/mcp` })).json()) as { authorizationUrl: string };
    const location = new URL((await fetch(view.authorizationUrl, { redirect: "manual" })).headers.get("location")!);
    const grants = async () =>
      ((await (await fetch(`${base()}/control/state`)).json()) as { grants: { authorization_code: number } }).grants;
    const before = (await grants()).authorization_code;
    location.searchParams.set("iss", "https://attacker.example");
    const res = await SELF.fetch(location.href);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('issuer "https://attacker.example"');
    expect((await grants()).authorization_code).toBe(before);
    expect((await snapshotOf(session)).mcpServers[0]?.status).toBe("authRequired");
  });
});
