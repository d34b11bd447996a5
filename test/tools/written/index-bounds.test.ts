import { describe, expect, it } from "vitest";
import {
  indexMetadata,
  MAX_METADATA_BYTES,
  summaryFromMetadata,
  type WrittenToolSummary,
} from "../../../src/tools/written/index-summary.ts";
import type { WrittenToolEntry } from "../../../src/tools/written/spec.ts";
import { MAX_INDEX_ROWS } from "../../../src/tools/written/tool-index.ts";
import { checkIndexBounds, MAX_DRAFTS_PER_SESSION } from "../../../src/tools/written/write-tool.ts";

const summary = (name: string, sessionId: string, status: WrittenToolSummary["status"] = "pending"): WrittenToolSummary => ({
  name,
  version: 1,
  status,
  hash: "0".repeat(64),
  label: "L",
  description: "D",
  author: { sessionId },
  writtenAt: "2026-01-01T00:00:00.000Z",
});

describe("bounds of the written-tool index", () => {
  it("refuses a new name once the index holds a full listing, with a clear error, but allows new versions", () => {
    const rows = Array.from({ length: MAX_INDEX_ROWS }, (_, i) => summary(`t${i}`, `s_${i % 50}`, "deployed"));
    expect(checkIndexBounds("brandNew", rows, true, "s_me")).toMatch(/index is full \(1000 tools\)/);
    expect(checkIndexBounds("brandNew", rows.slice(0, 10), false, "s_me")).toMatch(/index is full/);
    expect(checkIndexBounds("t3", rows, true, "s_me")).toBeUndefined();
  });

  it("caps the pending drafts one session holds", () => {
    const mine = Array.from({ length: MAX_DRAFTS_PER_SESSION }, (_, i) => summary(`d${i}`, "s_me"));
    expect(checkIndexBounds("oneMore", mine, true, "s_me")).toMatch(new RegExp(`already has ${MAX_DRAFTS_PER_SESSION} pending drafts`));
    expect(checkIndexBounds("d0", mine, true, "s_me")).toBeUndefined();
    expect(checkIndexBounds("oneMore", mine, true, "s_other")).toBeUndefined();
  });

  it("keeps each row's metadata within KV's 1024 bytes, whatever the text lengths", () => {
    const entry: WrittenToolEntry = {
      ...summary("big", `s_${"x".repeat(22)}`),
      label: "é".repeat(40),
      description: "日本".repeat(1_000),
      author: { sessionId: `s_${"x".repeat(22)}`, toolCallId: "c".repeat(200) },
      status: "rejected",
      error: "e".repeat(20_000),
      rejectedAt: "2026-01-01T00:00:00.000Z",
      sourceKey: "tools/big/v1.ts",
      specKey: "tools/big/v1.json",
    };
    const metadata = indexMetadata(entry);
    expect(new TextEncoder().encode(JSON.stringify(metadata)).length).toBeLessThanOrEqual(MAX_METADATA_BYTES);
    const back = summaryFromMetadata("big", metadata)!;
    expect(back).toMatchObject({
      name: "big",
      version: 1,
      status: "rejected",
      label: entry.label,
      hash: entry.hash,
      rejectedAt: entry.rejectedAt,
    });
    expect(back.error!.endsWith("...")).toBe(true);
    expect(back.description.startsWith("日本")).toBe(true);
  });
});
