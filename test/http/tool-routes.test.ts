/**
 * The tool registry routes with API_TOKEN set, as a deployment runs them: GET /v1/tools shows drafts only
 * to the operator; GET /v1/tools/:name returns a written tool's source and checks; POST …/reject marks
 * it rejected and removes the draft from the session that wrote it.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../src/http/app.ts";
import { indexKey, putEntry, readEntry } from "../../src/tools/written/tool-index.ts";
import { api, createSession, nextResponse, script, send } from "../session/support.ts";
import {
  adderInput,
  approveWriteTool,
  callReply,
  runWriteToolDirectly,
  textOf,
  toolResults,
  uniqueName,
  workerEnv,
  writeToolReply,
} from "../session/write-tool-support.ts";

const TOKEN = "operator-secret";
const call = (path: string, init: RequestInit & { token?: string } = {}) => {
  const headers = new Headers(init.headers);
  if (init.token) headers.set("authorization", `Bearer ${init.token}`);
  return app.fetch(new Request(`http://edge.test${path}`, { ...init, headers }), { ...env, API_TOKEN: TOKEN });
};
type Listing = { bundled: { name: string }[]; written: { name: string; status: string }[] };

/** A session whose model writes `name` as a draft; returns the session once the run ended. */
async function sessionWithDraft(name: string) {
  const session = await createSession();
  await script(session, writeToolReply("w1", adderInput(name)), { text: "written" });
  await send(session, "write a tool");
  await approveWriteTool(session);
  await nextResponse(session);
  return session;
}

describe("GET /v1/tools with API_TOKEN set", () => {
  it("shows anyone the bundled and deployed tools but no drafts", async () => {
    const name = uniqueName("hidden");
    await runWriteToolDirectly(adderInput(name));
    const res = await call("/v1/tools");
    expect(res.status).toBe(200);
    const body = (await res.json()) as Listing;
    expect(body.bundled.map((t) => t.name)).toContain("writeTool");
    expect(body.written.map((t) => t.name)).not.toContain(name);
    expect(body.written.every((t) => t.status === "deployed")).toBe(true);
  });

  it("shows the operator every written tool, drafts included", async () => {
    const name = uniqueName("visible");
    await runWriteToolDirectly(adderInput(name));
    const body = (await (await call("/v1/tools", { token: TOKEN })).json()) as Listing;
    expect(body.written.find((t) => t.name === name)).toMatchObject({ status: "pending" });
  });

  it("refuses a wrong token instead of answering as to anyone", async () => {
    expect((await call("/v1/tools", { token: "guess" })).status).toBe(403);
  });
});

describe("GET /v1/tools/:name", () => {
  it("needs the API token", async () => {
    expect((await call("/v1/tools/anything")).status).toBe(401);
  });

  it("returns a written tool's source, spec and checks", async () => {
    const name = uniqueName("inspected");
    await runWriteToolDirectly(adderInput(name));
    const res = await call(`/v1/tools/${name}`, { token: TOKEN });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { name: string; status: string; source: string; spec: { executeCode: string }; checks: unknown };
    expect(body).toMatchObject({ name, status: "pending", spec: { executeCode: adderInput(name).executeCode } });
    expect(body.source).toContain(`// Written by writeTool: ${name} v1.`);
    expect(body.checks).toEqual({ writeTool: { ok: true, problems: [] }, redeploy: { state: "not yet checked" } });
  });

  it("answers 404 for a name no tool was written under", async () => {
    expect((await call(`/v1/tools/${uniqueName("never")}`, { token: TOKEN })).status).toBe(404);
  });
});

describe("POST /v1/tools/:name/reject", () => {
  it("needs the API token", async () => {
    expect((await call("/v1/tools/anything/reject", { method: "POST" })).status).toBe(401);
  });

  it("marks a pending tool rejected with the operator's reason", async () => {
    const name = uniqueName("vetoed");
    await runWriteToolDirectly(adderInput(name));
    const res = await call(`/v1/tools/${name}/reject`, {
      method: "POST",
      token: TOKEN,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ reason: "reads too much" }),
    });
    expect(res.status).toBe(200);
    const row = JSON.parse((await workerEnv.TOOL_INDEX.get(indexKey(name)))!) as { status: string; error: string };
    expect(row).toMatchObject({ status: "rejected", error: "Rejected by an operator: reads too much" });
  });

  it("removes the draft from the session that wrote it: no longer offered, and a call finds no tool", async () => {
    const name = uniqueName("dropped");
    const session = await sessionWithDraft(name);
    const before = (await (await api(`/v1/sessions/${session.id}`, { key: session.key })).json()) as { tools: string[] };
    expect(before.tools).toContain(name);

    const res = await call(`/v1/tools/${name}/reject`, { method: "POST", token: TOKEN });
    expect(await res.json()).toMatchObject({ name, status: "rejected", droppedFromSession: true });
    const after = (await (await api(`/v1/sessions/${session.id}`, { key: session.key })).json()) as { tools: string[] };
    expect(after.tools).not.toContain(name);

    await script(session, callReply("c1", name, { a: 1, b: 2 }), { text: "ok" });
    await send(session, "use it");
    await nextResponse(session);
    const last = (await toolResults(session)).at(-1);
    expect(last).toMatchObject({ toolName: name, isError: true });
    expect(textOf(last)).not.toContain("sum");
  });

  it("addresses no session object when the row's author is not an issued session id", async () => {
    const legacy = `s_${"A".repeat(22)}`;
    const forged = `s_${"A".repeat(38)}`;
    // "direct-session" is the author runWriteToolDirectly records; the others are hand-edited, well-formed ids.
    for (const author of [undefined, legacy, forged]) {
      const name = uniqueName("handEdited");
      await runWriteToolDirectly(adderInput(name));
      if (author) {
        const row = (await readEntry(workerEnv.TOOL_INDEX, name))!;
        await putEntry(workerEnv.TOOL_INDEX, { ...row, author: { ...row.author, sessionId: author } });
      }
      const addressed: string[] = [];
      const AGENT_SESSION = {
        idFromName: (n: string) => (addressed.push(n), env.AGENT_SESSION.idFromName(n)),
        get: (id: DurableObjectId) => env.AGENT_SESSION.get(id),
      };
      const res = await app.fetch(
        new Request(`http://edge.test/v1/tools/${name}/reject`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}` } }),
        { ...env, API_TOKEN: TOKEN, AGENT_SESSION },
      );
      expect(await res.json()).toMatchObject({ name, status: "rejected", droppedFromSession: false });
      expect(addressed, author).toEqual([]);
    }
  });

  it("refuses to reject a tool that is not pending", async () => {
    const name = uniqueName("twice");
    await runWriteToolDirectly(adderInput(name));
    await call(`/v1/tools/${name}/reject`, { method: "POST", token: TOKEN });
    expect((await call(`/v1/tools/${name}/reject`, { method: "POST", token: TOKEN })).status).toBe(409);
  });
});
