/**
 * writeTool end to end, on a throwaway copy of the project (so the repository's tools/ is never touched):
 * `wrangler dev` with local persistence runs the Worker; a session's (scripted) model writes a tool and
 * calls it as a sandboxed draft in the same run; `npm run redeploy -- --local --persist-to DIR` ships it;
 * wrangler dev reloads from tools/ and a new session calls it as a bundled tool. Two broken tools (a type
 * error written through writeTool, a source that throws on load put straight into R2) are rejected, and
 * the Worker keeps serving. The steps run in order; each test checks the outcome of one step.
 */
import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { getPlatformProxy } from "wrangler";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexKey, sha256Hex, sourceKey, specKey, type ToolIndexEnv } from "../../src/tools/written/tool-index.ts";
import { WRITTEN_TOOL_MARKER } from "../../src/tools/written/render.ts";
import type { WriteToolInput, WrittenToolEntry } from "../../src/tools/written/spec.ts";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.ts";
import type { MockReply } from "../../support/mock-openai-server.ts";
import { copyProject, REPO_ROOT, type TempProject } from "../support/temp-project.ts";
import { createApi, textOf, type E2eApi, type E2eSession } from "./support/http-api.ts";
import { startWranglerDev, type WranglerDev } from "../../support/wrangler-dev.ts";
import { sleep } from "../support/time.ts";

type ToolsBody = { bundled: { name: string }[]; written: { name: string; status: string; draft: boolean; error?: string }[] };
type ToolResult = {
  role: string;
  toolCallId: string;
  toolName: string;
  isError: boolean;
  addedToolNames?: string[];
  content: { type: string; text?: string }[];
};

/** wrangler dev notices tools/ changes, rebuilds and reloads in a few seconds here; this is the ceiling. */
const RELOAD_TIMEOUT_MS = 60_000;

const adder: WriteToolInput = {
  name: "e2eAdder",
  label: "E2E Adder",
  description: "Adds a and b.",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  executeCode: "return `sum: ${args.a + args.b}`;",
};
// Parses and runs as a draft, but `n` is a number to TypeScript: the redeploy's typecheck rejects it.
const typeBroken: WriteToolInput = {
  ...adder,
  name: "e2eTypeBroken",
  label: "Broken",
  executeCode: "const n = 1;\nreturn n.toUpperCase();",
};

let project: TempProject;
let llm: ScriptedLlm;
let dev: WranglerDev;
let api: E2eApi;
let repoToolsBefore: string[];

async function scriptedSession(...replies: MockReply[]): Promise<E2eSession> {
  const scriptId = crypto.randomUUID();
  const session = await api.createSession({ systemPrompt: `E2E agent [script:${scriptId}]` });
  const res = await fetch(`${llm.controlUrl}/scripts/${scriptId}`, { method: "POST", body: JSON.stringify(replies) });
  if (!res.ok) throw new Error(`scripting failed: ${res.status}`);
  return session;
}

async function toolResultsOf(session: E2eSession): Promise<ToolResult[]> {
  return (await api.snapshot(session)).messages.filter((m) => m.role === "toolResult") as unknown as ToolResult[];
}

/** writeTool waits for a human's yes (its own approval flag): approve `count` of its calls as they come. */
async function approveWrites(session: E2eSession, count: number): Promise<void> {
  const approved = new Set<string>();
  const deadline = Date.now() + 30_000;
  while (approved.size < count) {
    if (Date.now() > deadline) throw new Error(`only ${approved.size} of ${count} writeTool approvals were asked for`);
    for (const p of (await api.snapshot(session)).pendingApprovals) {
      if (p.toolName !== "writeTool" || approved.has(p.toolCallId)) continue;
      await api.call(`/v1/sessions/${session.id}/tool-calls/${encodeURIComponent(p.toolCallId)}/approval`, {
        method: "POST",
        key: session.key,
        json: { approve: true },
      });
      approved.add(p.toolCallId);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const tools = async (): Promise<ToolsBody> => (await (await api.call("/v1/tools")).json()) as ToolsBody;

function runRedeploy(): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const bin = path.join(project.root, "node_modules", ".bin");
    execFile(
      "npm",
      ["run", "redeploy", "--", "--local", "--persist-to", dev.persistTo, "--yes"],
      {
        cwd: project.root,
        env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` },
      },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

/** Puts a source that throws on load straight into the running Worker's local R2 and KV. */
async function putThrowingTool(): Promise<void> {
  const proxy = await getPlatformProxy<ToolIndexEnv>({
    configPath: path.join(project.root, "wrangler.toml"),
    persist: { path: path.join(dev.persistTo, "v3") },
    remoteBindings: false,
  });
  try {
    const source = `${WRITTEN_TOOL_MARKER}: e2eThrows v1.\nexport function getTool() {\n  throw new Error("kaboom at load");\n}\n`;
    const entry: WrittenToolEntry = {
      name: "e2eThrows",
      version: 1,
      hash: await sha256Hex(source),
      status: "pending",
      label: "Throws",
      description: "Throws on load.",
      author: { sessionId: "e2e" },
      writtenAt: new Date().toISOString(),
      sourceKey: sourceKey("e2eThrows", 1),
      specKey: specKey("e2eThrows", 1),
    };
    await proxy.env.TOOL_SOURCE.put(entry.sourceKey, source);
    await proxy.env.TOOL_INDEX.put(indexKey("e2eThrows"), JSON.stringify(entry));
  } finally {
    await proxy.dispose();
  }
}

beforeAll(async () => {
  repoToolsBefore = (await readdir(path.join(REPO_ROOT, "tools"))).sort();
  project = await copyProject();
  llm = await startScriptedLlm();
  dev = await startWranglerDev({
    cwd: project.root,
    vars: {
      OPENAI_API_KEY: "test",
      OPENAI_BASE_URL: llm.llmUrl,
      OPENAI_MODEL: "mock",
      MAX_RETRY_DELAY_MS: "20",
      WRITE_TOOL_ENABLED: "true",
    },
  });
  api = createApi(dev.url);
});

afterAll(async () => {
  await dev?.stop();
  await llm?.close();
  await project?.remove();
});

describe("a tool the agent writes, from draft to deployed, through wrangler dev", () => {
  let writer: E2eSession;
  let redeploy: { code: number; output: string };

  it("runs as a draft in the session that wrote it", async () => {
    writer = await scriptedSession(
      { toolCalls: [{ id: "w1", name: "writeTool", arguments: adder }] },
      { toolCalls: [{ id: "c1", name: "e2eAdder", arguments: { a: 20, b: 22 } }] },
      { toolCalls: [{ id: "w2", name: "writeTool", arguments: typeBroken }] },
      { text: "The sum is 42." },
    );
    await api.send(writer, "Add 20 and 22 with a tool of your own.");
    await approveWrites(writer, 2);
    expect(textOf((await api.nextResponse(writer, 30_000)) as unknown as ToolResult)).toBe("The sum is 42.");
    const byId = Object.fromEntries((await toolResultsOf(writer)).map((r) => [r.toolCallId, r]));
    expect(byId.w1).toMatchObject({ toolName: "writeTool", isError: false, addedToolNames: ["e2eAdder"] });
    expect(byId.c1).toMatchObject({ toolName: "e2eAdder", isError: false });
    expect(textOf(byId.c1)).toBe("sum: 42");
    expect(byId.w2).toMatchObject({ isError: false, addedToolNames: ["e2eTypeBroken"] });
  });

  it("is listed as a pending draft before the redeploy", async () => {
    const body = await tools();
    expect(body.bundled.map((t) => t.name)).not.toContain("e2eAdder");
    expect(body.written.find((t) => t.name === "e2eAdder")).toMatchObject({ status: "pending", draft: true });
  });

  it("is shipped by npm run redeploy -- --local, which rejects the broken tools", async () => {
    await putThrowingTool();
    redeploy = await runRedeploy();
    expect(redeploy.code, redeploy.output).toBe(0);
    expect(redeploy.output).toContain("e2eAdder v1: checks passed");
    expect(redeploy.output).toContain("e2eTypeBroken v1: rejected");
    expect(redeploy.output).toContain("e2eThrows v1: rejected");
  });

  it("becomes a bundled tool once wrangler dev has reloaded", async () => {
    const deadline = Date.now() + RELOAD_TIMEOUT_MS;
    let body = await tools();
    while (!body.bundled.some((t) => t.name === "e2eAdder") && Date.now() < deadline) {
      await sleep(500);
      body = await tools();
    }
    expect(
      body.bundled.map((t) => t.name),
      dev.logs().slice(-3000),
    ).toContain("e2eAdder");
    expect(body.written.find((t) => t.name === "e2eAdder")).toMatchObject({ status: "deployed", draft: false });
  });

  it("is called by a new session as a bundled tool", async () => {
    const session = await scriptedSession({ toolCalls: [{ id: "n1", name: "e2eAdder", arguments: { a: 1, b: 2 } }] }, { text: "3" });
    await api.send(session, "Add 1 and 2.");
    await api.nextResponse(session, 30_000);
    const [result] = await toolResultsOf(session);
    expect(result).toMatchObject({ toolName: "e2eAdder", isError: false });
    expect(textOf(result)).toBe("sum: 3");
  });

  it("records why each broken tool was rejected, and the Worker keeps serving", async () => {
    const body = await tools();
    const row = (name: string) => body.written.find((t) => t.name === name);
    expect(row("e2eTypeBroken")).toMatchObject({ status: "rejected", draft: false });
    expect(row("e2eTypeBroken")?.error).toMatch(/tools\/e2eTypeBroken\.ts\(\d+,\d+\): error TS2339/);
    // Not the rendering of a spec: refused before anything could load it.
    expect(row("e2eThrows")).toMatchObject({
      status: "rejected",
      error: `spec ${specKey("e2eThrows", 1)} is missing from R2 or names another tool`,
    });
    expect(body.bundled.map((t) => t.name)).not.toContain("e2eTypeBroken");
    expect(body.bundled.map((t) => t.name)).not.toContain("e2eThrows");
    // The writer's session still answers.
    expect((await api.snapshot(writer)).status).toBe("idle");
  });

  it("leaves the repository's tools/ as it was", async () => {
    expect((await readdir(path.join(REPO_ROOT, "tools"))).sort()).toEqual(repoToolsBefore);
  });
});
