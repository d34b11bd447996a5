/**
 * Written tools belong to their author until deployed: another session cannot take a draft's name,
 * learn it from errors or version numbers, or replace it. And the index is listed from the keys'
 * metadata in one call, not read row by row.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentTool, AgentToolResult } from "../../src/core/types.ts";
import { ToolStore } from "../../src/core/tool-store.ts";
import { registerDraft } from "../../src/tools/written/session-tools.ts";
import type { WriteToolInput } from "../../src/tools/written/spec.ts";
import { commitWrittenTool, indexKey, listSummaries, putEntry, readEntry, sourceKey } from "../../src/tools/written/tool-index.ts";
import { getTool } from "../../tools/writeTool.ts";
import { adderInput, uniqueName, workerEnv } from "../session/write-tool-support.ts";

type Outcome = { ok: true; result: AgentToolResult } | { ok: false; error: string };

/** writeTool as session `sessionId` runs it. */
async function writeAs(sessionId: string, input: WriteToolInput): Promise<Outcome> {
  const store = new ToolStore(sessionId);
  const context = { sessionId, env: workerEnv, registerDraft: (draft: AgentTool) => registerDraft(store, draft) };
  try {
    return { ok: true, result: await getTool().execute(`call_${sessionId}`, input, undefined, () => {}, context) };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

const TAKEN = /the name is taken; choose another name$/;

describe("a draft's name belongs to its author", () => {
  it("refuses another session's write of the same name, saying only that it is taken, and keeps the author's draft", async () => {
    const name = uniqueName("mine");
    const first = await writeAs("s_author", adderInput(name));
    expect(first.ok).toBe(true);
    const intruder = await writeAs("s_intruder", adderInput(name, { executeCode: "return 'pwned';" }));
    expect(intruder.ok).toBe(false);
    const error = intruder.ok ? "" : intruder.error;
    expect(error).toMatch(TAKEN);
    expect(error).not.toMatch(/version|v1|s_author|pending|draft/i);
    const row = await readEntry(workerEnv.TOOL_INDEX, name);
    expect(row).toMatchObject({ version: 1, author: { sessionId: "s_author" } });
    expect(await (await workerEnv.TOOL_SOURCE.get(row!.sourceKey))!.text()).not.toContain("pwned");
  });

  it("answers a case variant of another session's draft the same way, never spelling the draft's name", async () => {
    const name = uniqueName("CaseDraft");
    expect((await writeAs("s_author2", adderInput(name))).ok).toBe(true);
    const variant = name.toLowerCase();
    const intruder = await writeAs("s_intruder2", adderInput(variant));
    expect(intruder.ok ? "" : intruder.error).toMatch(TAKEN);
    expect(intruder.ok ? "" : intruder.error).not.toContain(name);
  });

  it("numbers versions per author: the author's next write is v2", async () => {
    const name = uniqueName("again");
    await writeAs("s_author3", adderInput(name));
    const second = await writeAs("s_author3", adderInput(name, { executeCode: "return String(args.a * args.b);" }));
    expect(second.ok && second.result.details).toMatchObject({ version: 2 });
  });

  it("never replaces a stored version: a concurrent writer that lost the R2 race is refused", async () => {
    const name = uniqueName("race");
    // Another writer stored v1 a moment ago and has not written its KV row yet.
    await workerEnv.TOOL_SOURCE.put(sourceKey(name, 1), "// the other writer's source");
    const spec = {
      name,
      label: "L",
      description: "D",
      inputSchema: { type: "object" as const, properties: {} },
      executeCode: "return 1;",
      parallel: false,
    };
    const outcome = await commitWrittenTool(workerEnv, spec, { sessionId: "s_late" }, new Date());
    expect(outcome.kind).toBe("name_taken");
    expect(await (await workerEnv.TOOL_SOURCE.get(sourceKey(name, 1)))!.text()).toBe("// the other writer's source");
    expect(await workerEnv.TOOL_INDEX.get(indexKey(name))).toBeNull();
  });
});

describe("the written-tool index", () => {
  it("is listed from the keys' metadata, without reading each row", async () => {
    const name = uniqueName("listed");
    await writeAs("s_lister", adderInput(name, { description: "d".repeat(1_900) }));
    const row = (await readEntry(workerEnv.TOOL_INDEX, name))!;
    // The row's value is unreadable now; a listing that read it would drop the row.
    const key = (await workerEnv.TOOL_INDEX.list({ prefix: indexKey(name) })).keys[0]!;
    await workerEnv.TOOL_INDEX.put(indexKey(name), "not json", { metadata: key.metadata });
    const { summaries, complete } = await listSummaries(workerEnv.TOOL_INDEX);
    expect(complete).toBe(true);
    const summary = summaries.find((s) => s.name === name);
    expect(summary).toMatchObject({ name, version: 1, status: "pending", hash: row.hash, author: { sessionId: "s_lister" } });
    expect(summary!.description.length).toBeLessThan(1_000);
    expect(summary!.description.endsWith("...")).toBe(true);
    await putEntry(workerEnv.TOOL_INDEX, row);
  });

  it("still lists a row whose key has no metadata (an older writer) by reading it", async () => {
    const name = uniqueName("legacy");
    await writeAs("s_legacy", adderInput(name));
    const row = (await readEntry(workerEnv.TOOL_INDEX, name))!;
    await workerEnv.TOOL_INDEX.put(indexKey(name), JSON.stringify(row));
    expect((await listSummaries(workerEnv.TOOL_INDEX)).summaries.find((s) => s.name === name)).toMatchObject({
      version: 1,
      status: "pending",
    });
  });
});

void env;
