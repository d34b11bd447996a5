/**
 * The attack corpus (attack-corpus.ts) against the Worker's stages, in workerd: writeTool (its checks, and
 * the draft load that runs before anything is stored) and a call of every draft it accepted. Bodies that
 * leave their function are refused at write; the rest run only inside the draft sandbox, so after all of
 * them the marker server has seen no request. The Node-side stages: attack-corpus.node.test.ts.
 */
import { inject } from "vitest";
import { beforeAll, describe, expect, it } from "vitest";
import { ToolStore } from "../../src/core/tool-store.ts";
import { adderInput, runWriteToolDirectly, uniqueName } from "../session/write-tool-support.ts";
import { ATTACKS, type Attack } from "./attack-corpus.ts";

type Outcome = { attack: Attack; written: boolean; refusal?: string; call?: { isError: boolean; text: string } };

const markerHits = async () => Number(await (await fetch(inject("markerUrl").replace(/\/marker$/, "/hits"))).text());
const outcomes: Outcome[] = [];

beforeAll(async () => {
  for (const attack of ATTACKS) {
    const name = uniqueName("attack");
    const store = new ToolStore(`corpus-${name}`);
    const executeCode = attack.code.replaceAll("MARKER_URL", inject("markerUrl")).replaceAll("MARKER_PATH", "/tmp/edge-agent-marker");
    const written = await runWriteToolDirectly(
      adderInput(name, { executeCode, inputSchema: { type: "object", properties: {} } }),
      {},
      store,
    );
    if (!written.ok) {
      outcomes.push({ attack, written: false, refusal: written.error });
      continue;
    }
    const draft = store.get(name);
    let call: Outcome["call"];
    try {
      const result = await draft!.execute("corpus-call", {}, undefined, () => {}, { sessionId: "corpus", env: {} });
      call = { isError: false, text: JSON.stringify(result.content) };
    } catch (err) {
      call = { isError: true, text: err instanceof Error ? err.message : String(err) };
    }
    outcomes.push({ attack, written: true, call });
  }
}, 120_000);

describe("the attack corpus against writeTool and its drafts", () => {
  it("refuses at write every body that leaves its function", () => {
    expect(outcomes.filter((o) => o.attack.escapes && o.written).map((o) => o.attack.name)).toEqual([]);
  });

  it("refuses at write every body that imports", () => {
    expect(outcomes.filter((o) => /import/.test(o.attack.name)).every((o) => !o.written)).toBe(true);
  });

  it("runs what it accepts only in the sandbox, where a file write or a request fails", () => {
    const called = outcomes.filter((o) => o.written);
    expect(called.length).toBeGreaterThan(0);
    for (const o of called) expect(o.call?.text, o.attack.name).not.toMatch(/marker reached/);
  });

  it("lets no payload reach the network at write or at a draft call", async () => {
    expect(await markerHits()).toBe(0);
  });
});
