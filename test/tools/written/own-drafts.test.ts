/**
 * When a starting session reads the written-tool index for its drafts (registerOwnDrafts): only with
 * writeTool on and once the session wrote a tool, which the registerDraft capability records. Any other
 * start reads nothing from KV or R2. The index and the meta table are counted fakes here; the drafts
 * coming back across a restart are test/session/write-tool-restarts.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { AgentTool } from "../../../src/core/index.ts";
import { ToolStore } from "../../../src/core/tool-store.ts";
import { registerOwnDrafts, sessionToolHost, WROTE_TOOLS_KEY } from "../../../src/tools/written/session-tools.ts";

function fakes() {
  const reads: string[] = [];
  const index = {
    list: async () => {
      reads.push("TOOL_INDEX.list");
      return { keys: [], list_complete: true };
    },
    get: async () => {
      reads.push("TOOL_INDEX.get");
      return null;
    },
  } as unknown as KVNamespace;
  const bucket = {
    get: async () => {
      reads.push("TOOL_SOURCE.get");
      return null;
    },
  } as unknown as R2Bucket;
  const rows = new Map<string, unknown>();
  const meta = {
    read: <T>(key: string) => rows.get(key) as T | undefined,
    write: (key: string, value: unknown) => void rows.set(key, value),
  };
  const env = { TOOL_INDEX: index, TOOL_SOURCE: bucket, LOADER: {} as WorkerLoader };
  return { reads, rows, meta, env };
}

const draft = (name: string) =>
  ({ name, label: name, description: "", inputSchema: { type: "object" }, execute: async () => "" }) as unknown as AgentTool;

describe("a session's drafts as it starts", () => {
  it("are not looked for when the session never wrote a tool", async () => {
    const { reads, meta, env } = fakes();
    expect(await registerOwnDrafts(new ToolStore("s_new"), { ...env, WRITE_TOOL_ENABLED: "true" }, meta)).toEqual([]);
    expect(reads).toEqual([]);
  });

  it("are not looked for while writeTool is off, even for a session that wrote one", async () => {
    const { reads, meta, rows, env } = fakes();
    rows.set(WROTE_TOOLS_KEY, true);
    for (const off of [undefined, "false", "TRUE"]) {
      expect(await registerOwnDrafts(new ToolStore("s_wrote"), { ...env, WRITE_TOOL_ENABLED: off }, meta)).toEqual([]);
    }
    expect(reads).toEqual([]);
  });

  it("are looked for once the session handed a draft to its store", async () => {
    const { reads, meta, rows, env } = fakes();
    const store = new ToolStore("s_writer");
    const host = sessionToolHost(store, env, meta);
    expect(host.capabilities.registerDraft(draft("adder_1"))).toBe(true);
    expect(rows.get(WROTE_TOOLS_KEY)).toBe(true);
    await registerOwnDrafts(new ToolStore("s_writer"), { ...env, WRITE_TOOL_ENABLED: "true" }, meta);
    expect(reads).toEqual(["TOOL_INDEX.list"]);
  });
});
