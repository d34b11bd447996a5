/**
 * Drafts and the tool checks run on the Worker's own runtime: the one compatibility date in code equals
 * wrangler.toml's (and the test Worker's), so a bump of one cannot leave the others behind.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { DRAFT_COMPATIBILITY_DATE } from "../../../src/tools/written/draft-tool.ts";

const compatibilityDateOf = async (file: string) =>
  (await readFile(new URL(`../../../${file}`, import.meta.url), "utf8")).match(/^compatibility_date\s*=\s*"([^"]+)"/m)?.[1];

describe("compatibility date", () => {
  it("is the same for drafts, the Worker and the test Worker", async () => {
    expect(await compatibilityDateOf("wrangler.toml")).toBe(DRAFT_COMPATIBILITY_DATE);
    expect(await compatibilityDateOf("test/worker/wrangler.test.toml")).toBe(DRAFT_COMPATIBILITY_DATE);
  });
});
