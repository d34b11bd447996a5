import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../src/http/app.ts";
import { ToolStore } from "../../src/core/tool-store.ts";
import { sha256Hex } from "../../src/tools/written/tool-index.ts";
import { WRITTEN_TOOL_MARKER } from "../../src/tools/written/render.ts";
import type { WrittenToolEntry } from "../../src/tools/written/spec.ts";
import { api, createSession, nextResponse, openEvents, script, send } from "./support.ts";
import { adderInput, runWriteToolDirectly, textOf, toolResults, uniqueName, workerEnv, writeToolReply } from "./write-tool-support.ts";

const rowOf = async (name: string) => JSON.parse((await workerEnv.TOOL_INDEX.get(`tool:${name}`)) ?? "null") as WrittenToolEntry | null;

describe("writeTool's storage", () => {
  it("commits the rendered source to R2 and a pending index row to KV naming who wrote it and when", async () => {
    const name = uniqueName("adder");
    const before = Date.now();
    const outcome = await runWriteToolDirectly(adderInput(name));
    expect(outcome.ok).toBe(true);

    const row = await rowOf(name);
    expect(row).toMatchObject({
      name,
      version: 1,
      status: "pending",
      label: "Add Numbers",
      author: { sessionId: "direct-session", toolCallId: "direct-call" },
    });
    expect(Date.parse(row!.writtenAt)).toBeGreaterThanOrEqual(before - 1000);
    const source = await (await workerEnv.TOOL_SOURCE.get(row!.sourceKey))!.text();
    expect(row!.sourceKey).toBe(`tools/${name}/v1.ts`);
    expect(source.startsWith(`${WRITTEN_TOOL_MARKER}: ${name} v1.`)).toBe(true);
    expect(source).toContain("export function getTool(): AgentTool {");
    expect(row!.hash).toBe(await sha256Hex(source));
    const spec = await (await workerEnv.TOOL_SOURCE.get(row!.specKey))!.json();
    expect(spec).toMatchObject({ name, executeCode: adderInput(name).executeCode, parallel: false });
  });

  it("writes the same name again as a new version and keeps the old version's source", async () => {
    const name = uniqueName("adder");
    await runWriteToolDirectly(adderInput(name));
    const second = await runWriteToolDirectly(adderInput(name, { executeCode: "return String(args.a * args.b);" }));
    expect(second.ok && second.result.details).toMatchObject({ version: 2 });
    expect((await rowOf(name))?.version).toBe(2);
    expect(await workerEnv.TOOL_SOURCE.head(`tools/${name}/v1.ts`)).not.toBeNull();
    expect(await (await workerEnv.TOOL_SOURCE.get(`tools/${name}/v2.ts`))!.text()).toContain("return String(args.a * args.b);");
  });

  it("refuses a bundled tool's name and stores nothing", async () => {
    const outcome = await runWriteToolDirectly(adderInput("getTime"));
    expect(outcome).toEqual({
      ok: false,
      error: 'writeTool refused "getTime":\n- "getTime" is a bundled tool; bundled tools cannot be replaced, choose another name',
    });
    expect(await workerEnv.TOOL_INDEX.get("tool:getTime")).toBeNull();
  });

  it("refuses input that fails the checks, listing every problem, and stores nothing", async () => {
    const name = uniqueName("bad");
    const outcome = await runWriteToolDirectly(adderInput(name, { inputSchema: { type: "array" }, executeCode: "return 1; }" }));
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.error.split("\n").slice(1)).toEqual([
      '- inputSchema.type must be "object", got "array"',
      "- inputSchema.properties must be an object",
      '- executeCode line 1, column 11: unmatched "}": it would close the function the code is placed in',
    ]);
    expect(await rowOf(name)).toBeNull();
  });

  it('is off unless WRITE_TOOL_ENABLED is "true", says so, and stores nothing', async () => {
    const name = uniqueName("off");
    const outcome = await runWriteToolDirectly(adderInput(name), { WRITE_TOOL_ENABLED: "false" });
    expect(outcome).toEqual({
      ok: false,
      error: 'writeTool is disabled on this deployment (WRITE_TOOL_ENABLED is not "true"). Use the tools you have.',
    });
    expect(await rowOf(name)).toBeNull();
  });

  it("refuses code the draft runtime cannot compile, naming the line in executeCode, and stores nothing", async () => {
    const name = uniqueName("broken");
    const outcome = await runWriteToolDirectly(adderInput(name, { executeCode: "const a = 1;\nreturn a +* 2;" }));
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.error).toMatch(
      /^writeTool refused "broken_\w+": The draft of tool "broken_\w+" failed to load: Uncaught SyntaxError: .*executeCode line 2, column \d+/s,
    );
    expect(!outcome.ok && outcome.error).toMatch(/Write plain JavaScript/);
    expect(await rowOf(name)).toBeNull();
  });

  it("without a Worker Loader stores the tool but leaves it for the redeploy", async () => {
    const name = uniqueName("later");
    const store = new ToolStore("no-loader");
    const outcome = await runWriteToolDirectly(adderInput(name), { LOADER: undefined }, store);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.result.addedToolNames).toBeUndefined();
    expect(textOf(outcome.result)).toContain("This Worker has no draft runtime: the tool becomes callable after the redeploy ships it.");
    expect(textOf(outcome.result)).toContain(
      "Redeploy not requested: no REDEPLOY_HOOK_URL is configured: an operator must run `npm run redeploy`.",
    );
    expect(store.has(name)).toBe(false);
    expect((await rowOf(name))?.status).toBe("pending");
  });
});

describe("writeTool in a session", () => {
  it("waits for a human's yes when the approval policy requires it, and a no stores nothing", async () => {
    const name = uniqueName("approved");
    const session = await createSession({ requireApproval: ["writeTool"] });
    await script(session, writeToolReply("w1", adderInput(name)), { text: "ok" });
    const events = await openEvents(session);
    await send(session, "write a tool");
    await events.until("toolApprovalRequired");
    expect(await rowOf(name)).toBeNull();
    await api(`/v1/sessions/${session.id}/tool-calls/w1/approval`, {
      method: "POST",
      key: session.key,
      json: { approve: false, reason: "no new tools today" },
    });
    await nextResponse(session);
    const [result] = await toolResults(session);
    expect(result).toMatchObject({ toolName: "writeTool", isError: true });
    expect(textOf(result)).toBe("Rejected: no new tools today");
    expect(await rowOf(name)).toBeNull();
    await events.cancel();
  });

  it("is listed with its status by GET /v1/tools, next to the bundled tools", async () => {
    const name = uniqueName("listed");
    await runWriteToolDirectly(adderInput(name));
    // Asked locally: without API_TOKEN only a local Worker's caller is the operator, who sees pending drafts.
    const body = (await (await app.fetch(new Request("http://localhost/v1/tools"), { ...env, LOCAL_DEV: "true" })).json()) as {
      bundled: { name: string }[];
      written: { name: string; status: string; draft: boolean; version: number }[];
      draftRuntime: boolean;
    };
    expect(body.bundled.map((t) => t.name)).toContain("writeTool");
    expect(body.draftRuntime).toBe(true);
    expect(body.written.find((t) => t.name === name)).toMatchObject({ name, status: "pending", draft: true, version: 1 });
  });
});
