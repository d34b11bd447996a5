/**
 * The attack corpus (attack-corpus.ts) against the Node-side stages, which hold deploy credentials: the
 * redeploy check (the TypeScript parser refuses every body that leaves its function; what passes is
 * loaded only in workerd) and the registry generator (every rendering, as if committed to tools/ by
 * hand, loaded in one workerd). After all of them no marker file exists and the marker server saw nothing.
 * The write and draft-call stages run in workerd: attack-corpus.test.ts.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkRenderedStructure } from "../../scripts/redeploy/structure-check.ts";
import { checkTools } from "../../scripts/generate-registry.ts";
import { bundleTools } from "../../scripts/tool-check/bundle-tools.ts";
import { checkModulesInWorkerd } from "../../scripts/tool-check/workerd-load.ts";
import { renderToolSource } from "../../src/tools/written/render.ts";
import type { WrittenToolSpec } from "../../src/tools/written/spec.ts";
import { startMarkerServer, type MarkerServer } from "../support/marker-server.ts";
import { ATTACKS, type Attack } from "./attack-corpus.ts";

const META = { version: 1, author: { sessionId: "attacker", toolCallId: "call_1" }, writtenAt: "2026-11-30T00:00:00.000Z" };
/** Loading a rendered tool takes milliseconds; the endless loops of the corpus are cut after this. */
const LOAD_TIMEOUT_MS = 1_500;

let marker: MarkerServer;
let dir: string;
let markerPath: string;

const specOf = (attack: Attack, i: number): WrittenToolSpec => ({
  name: `attack${i}`,
  label: "Attack",
  description: attack.name,
  inputSchema: { type: "object", properties: {} },
  executeCode: attack.code.replaceAll("MARKER_URL", marker.url).replaceAll("MARKER_PATH", markerPath),
  parallel: false,
});
const rendered = (attack: Attack, i: number) => renderToolSource(specOf(attack, i), META).code;
const nothingRan = () => {
  expect(existsSync(markerPath)).toBe(false);
  expect(marker.hits()).toBe(0);
};

beforeAll(async () => {
  marker = await startMarkerServer();
  dir = await mkdtemp(path.join(tmpdir(), "attack-corpus-"));
  markerPath = path.join(dir, "MARKER");
});

afterAll(async () => {
  await marker?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("holds at least 25 payloads", () => {
  expect(ATTACKS.length).toBeGreaterThanOrEqual(25);
});

describe("the redeploy's parser check refuses every body that leaves its function", () => {
  it.each(ATTACKS.map((attack, i) => [attack.name, attack, i] as const).filter(([, a]) => a.escapes))("%s", (_name, attack, i) => {
    const spec = specOf(attack, i);
    expect(checkRenderedStructure(rendered(attack, i), spec, META)).not.toEqual([]);
  });
});

describe("the redeploy's smoke load", () => {
  let survivors: { attack: Attack; i: number }[] = [];
  let loaded = new Map<string, string[]>();
  beforeAll(async () => {
    survivors = ATTACKS.map((attack, i) => ({ attack, i })).filter(
      ({ attack, i }) => checkRenderedStructure(rendered(attack, i), specOf(attack, i), META).length === 0,
    );
    const src = path.join(dir, "survivors");
    const out = path.join(dir, "survivors-bundle");
    await mkdir(src);
    await mkdir(out);
    const files = await Promise.all(
      survivors.map(async ({ attack, i }) => {
        const file = path.join(src, `attack${i}.ts`);
        await writeFile(file, rendered(attack, i));
        return file;
      }),
    );
    const bundles = await bundleTools(files, out);
    loaded = await checkModulesInWorkerd(
      out,
      survivors.map(({ i }, k) => ({ name: `attack${i}`, module: bundles.entries.get(files[k]!)! })),
      LOAD_TIMEOUT_MS,
    );
  }, 60_000);

  it("gets only bodies that stay inside their functions, and loads them without running them", () => {
    expect(survivors.every(({ attack }) => !attack.escapes)).toBe(true);
    expect([...loaded.values()].flat()).toEqual([]);
    nothingRan();
  });
});

describe("the registry generator, given every rendering as files in tools/", () => {
  let errors: string[] = [];
  beforeAll(async () => {
    const tools = path.join(dir, "tools");
    await mkdir(tools);
    for (const [i, attack] of ATTACKS.entries()) await writeFile(path.join(tools, `attack${i}.ts`), rendered(attack, i));
    ({ errors } = await checkTools(tools, LOAD_TIMEOUT_MS));
  }, 120_000);

  it("runs them only in workerd: no marker file, no request", () => {
    nothingRan();
  });

  it("fails the build for escaping bodies that break loading (loops, I/O at load, syntax)", () => {
    expect(errors.some((e) => /did not finish loading/.test(e))).toBe(true);
    expect(errors.some((e) => /cannot be bundled/.test(e))).toBe(true);
  });
});
