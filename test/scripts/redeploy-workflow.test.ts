/**
 * The shipped CI workflow for the redeploy hook (.github/workflows/redeploy-tools.yml): triggered by the
 * event writeTool's hook sends, it runs the redeploy checks without deploying and proposes the result as
 * a pull request. Read as text: the steps that matter are plain command lines.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { REDEPLOY_EVENT_TYPE } from "../../src/tools/written/redeploy-hook.ts";

const workflow = await readFile(new URL("../../.github/workflows/redeploy-tools.yml", import.meta.url), "utf8");
const runLines = workflow
  .split("\n")
  .filter((line) => /^\s+run: /.test(line))
  .map((line) => line.trim());

describe(".github/workflows/redeploy-tools.yml", () => {
  it("is triggered by the event the redeploy hook sends", () => {
    expect(workflow).toMatch(new RegExp(`repository_dispatch:\\n\\s+types: \\[${REDEPLOY_EVENT_TYPE}\\]`));
  });

  it("runs the redeploy's checks without deploying and without asking", () => {
    expect(runLines).toContainEqual(expect.stringContaining("npm run --silent redeploy -- --no-deploy --yes"));
  });

  it("never deploys", () => {
    expect(runLines.join("\n")).not.toMatch(/wrangler deploy|npm run deploy/);
    expect(runLines.filter((line) => line.includes("redeploy")).every((line) => line.includes("--no-deploy"))).toBe(true);
  });

  it("opens a pull request with the tool files, described by the review", () => {
    expect(workflow).toContain("uses: peter-evans/create-pull-request@v7");
    expect(workflow).toContain("add-paths: tools/*.ts");
    expect(workflow).toContain("body-path: ${{ runner.temp }}/pr-body.md");
  });
});
