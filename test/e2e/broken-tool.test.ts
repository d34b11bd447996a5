/**
 * `npm start` with a broken tool file: under a real `wrangler dev` on a project copy, a tool whose name
 * does not match its file, then a syntax error in another, must neither hang requests nor bury the cause.
 * The build leaves the broken file out, serves the rest, and prints one line naming the file and problem.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { copyProject, plainToolSource, type TempProject } from "../support/temp-project.ts";
import { startWranglerDev, type WranglerDev } from "../../support/wrangler-dev.ts";

/** A request the dev server must answer promptly (not hang for minutes), broken tool or not; a loaded machine rebuilds slowly. */
const ANSWER_WITHIN_MS = 15_000;
/** A rebuild (generator + bundle + reload) takes a few seconds here. */
const REBUILD_WITHIN_MS = 45_000;

let project: TempProject;
let dev: WranglerDev;

async function bundledTools(): Promise<string[]> {
  const res = await fetch(`${dev.url}/v1/tools`, { signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { bundled: { name: string }[] }).bundled.map((t) => t.name);
}

async function eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + REBUILD_WITHIN_MS;
  for (;;) {
    const value = await probe();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}
const logsSince = (mark: number) => dev.logs().slice(mark);
const writeTool = (file: string, source: string) => writeFile(path.join(project.root, "tools", file), source);

beforeAll(async () => {
  project = await copyProject({ tools: { "handMade.ts": plainToolSource("handMade") } });
  dev = await startWranglerDev({ cwd: project.root, vars: { LOCAL_DEV: "true" } });
}, 120_000);

afterAll(async () => {
  await dev?.stop();
  await project?.remove();
});

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(`--- wrangler dev output ---\n${dev?.logs() ?? "(not started)"}`));
});

describe("npm start with a broken tool file", () => {
  let mark = 0;
  let whileBroken: string[] = [];

  beforeAll(async () => {
    expect(await bundledTools()).toContain("handMade");
    mark = dev.logs().length;
    await writeTool("flipCoin.ts", plainToolSource("coinFlip"));
    await eventually(
      async () => logsSince(mark),
      (logs) => /Reloading local server|Local server updated|Ready/i.test(logs) && logs.includes("flipCoin"),
    );
    whileBroken = await bundledTools();
  }, 90_000);

  it("answers requests at once, serving the tools that are fine", () => {
    expect(whileBroken).toContain("handMade");
    expect(whileBroken).not.toContain("flipCoin");
  });

  it("prints the one line that names the file and the problem, and no process dump", () => {
    const logs = logsSince(mark);
    expect(logs).toContain(
      'generate-registry: tools/flipCoin.ts: tool name "coinFlip" does not match the file name "flipCoin" (left out until fixed; the other tools are served)',
    );
    expect(logs).not.toMatch(/Process exited with non-zero status|_process:|spawnargs/);
  });

  it("serves the tool once the file is fixed", async () => {
    await writeTool("flipCoin.ts", plainToolSource("flipCoin"));
    expect(await eventually(bundledTools, (names) => names.includes("flipCoin"))).toContain("flipCoin");
  }, 60_000);

  it("keeps serving when a tool already served stops compiling, leaving only that one out", async () => {
    const before = dev.logs().length;
    await writeTool("handMade.ts", "export function getTool( {\n");
    const names = await eventually(bundledTools, (n) => !n.includes("handMade"));
    expect(names).toEqual(expect.arrayContaining(["flipCoin"]));
    expect(names).not.toContain("handMade");
    expect(logsSince(before)).toMatch(
      /generate-registry: tools\/handMade\.ts: cannot be bundled: .* \(left out until fixed; the other tools are served\)/,
    );
  }, 60_000);
});
