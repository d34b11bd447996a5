/**
 * The suite tests the product with its own fixtures, not the user's tools/: in a project copy with the
 * tests and one extra tool of the user's (a plain object that imports nothing, as the docs show it),
 * the project still typechecks and the node tests that read tools/ still pass.
 */
import { execFile } from "node:child_process";
import { cp, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyProject, REPO_ROOT, runNodeScript, type TempProject } from "../support/temp-project.ts";

/** A user's tool as docs/writing-tools.md shows a plain one: no imports, a string result. */
const USER_TOOL = `export function getTool() {
  return {
    name: "aaUserTool",
    label: "User tool",
    description: "Greets someone.",
    inputSchema: { type: "object", properties: { who: { type: "string" } }, required: ["who"] },
    execute: (_toolCallId: string, args: { who: string }) => \`Hello, \${args.who}!\`,
  };
}
`;
/** The tests that look at tools/ or the registry generated from it. */
const TESTS_READING_TOOLS = ["test/tools", "test/scripts/config-files.test.ts", "test/scripts/script-imports.test.ts"];

type Run = { code: number; output: string };
const run = (cwd: string, bin: string, args: string[]): Promise<Run> =>
  new Promise((resolve) => {
    execFile(path.join(REPO_ROOT, "node_modules", ".bin", bin), args, { cwd, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      // vitest colours its summary even into a pipe.
      resolve({
        code: err ? (typeof err.code === "number" ? err.code : 1) : 0,
        output: `${stdout}${stderr}`.replace(/\u001b\[[0-9;]*m/g, ""),
      }),
    );
  });

let project: TempProject;
let typecheck: Run;
let tests: Run;

beforeAll(async () => {
  project = await copyProject();
  for (const entry of ["test", "support", "bench", "vitest.config.ts", "tsconfig.page.json", ".dev.vars.example"]) {
    // The bench's peers package has its own node_modules when it was ever run: not part of the project.
    await cp(path.join(REPO_ROOT, entry), path.join(project.root, entry), {
      recursive: true,
      filter: (from) => !from.includes(`${path.sep}node_modules`),
    });
  }
  await writeFile(path.join(project.root, "tools", "aaUserTool.ts"), USER_TOOL);
  await runNodeScript(project.root, path.join(project.root, "scripts", "generate-registry.ts"));
  typecheck = await run(project.root, "tsc", ["--noEmit"]);
  tests = await run(project.root, "vitest", ["run", "--project", "node", ...TESTS_READING_TOOLS]);
}, 240_000);

afterAll(async () => {
  await project?.remove();
});

describe("the suite with a user's extra tool in tools/", () => {
  it("typechecks, the plain-object tool included", () => {
    expect(typecheck.code, typecheck.output).toBe(0);
  });

  it("passes the node tests that read tools/", () => {
    expect(tests.code, tests.output).toBe(0);
    expect(tests.output).toMatch(/Test Files\s+\d+ passed \(\d+\)/);
  });
});
