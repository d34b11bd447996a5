/**
 * Probing session ids costs no storage, under a real `wrangler dev` with a throwaway persist dir: ids of the
 * older unsigned shape and ids of the issued shape with a wrong tag get the unknown session's 404 on every
 * route, and the files under the persist dir's Durable Object folder are the same before and after (names,
 * sizes, SHA-256). As deployed (a SIGNING_SECRET from support/wrangler-dev.ts) and as `npm start` runs
 * (no secret: one is generated and kept in the local state, so sessions outlive a restart).
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueSessionId, SESSION_ID_PATTERN } from "../../src/signing/session-ids.ts";
import { DEPLOYED_TEST_SIGNING_SECRET, startWranglerDev, type WranglerDev } from "../../support/wrangler-dev.ts";
import { retagged, sessionRouteProbes, UNKNOWN_SESSION_BODY } from "../support/session-routes.ts";

/** Every file under the persist dir's Durable Object folder, by relative path: its size and SHA-256. */
function durableObjectFiles(persistTo: string): Record<string, string> {
  const root = join(persistTo, "v3", "do");
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // not made yet: no object has stored anything
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        const bytes = readFileSync(path);
        files[relative(root, path)] = `${bytes.length} ${createHash("sha256").update(bytes).digest("hex")}`;
      }
    }
  };
  walk(root);
  return files;
}

const randomBase64Url = (chars: number) => {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  return Array.from(crypto.getRandomValues(new Uint8Array(chars)), (b) => alphabet[b % 64]).join("");
};

/** Ids this Worker did not issue, of both well-formed shapes: unsigned legacy ones, and wrong tags. */
const forgedIds = (issued: string[]) => [
  `s_${randomBase64Url(22)}`,
  `s_${randomBase64Url(22)}`,
  `s_${randomBase64Url(38)}`,
  ...issued.map(retagged),
];

/** Sends every route's probe for each id; each must get the unknown session's 404. */
async function probeAll(url: string, ids: string[]): Promise<number> {
  let sent = 0;
  for (const id of ids) {
    for (const { method, path, headers, body } of sessionRouteProbes(id)) {
      const res = await fetch(`${url}${path}`, { method, headers, body });
      expect({ status: res.status, body: await res.text() }, `${method} ${path}`).toEqual({ status: 404, body: UNKNOWN_SESSION_BODY });
      sent++;
    }
  }
  return sent;
}

async function createSession(url: string): Promise<{ id: string; key: string }> {
  const res = await fetch(`${url}/v1/sessions`, { method: "POST" });
  expect(res.status).toBe(201);
  const created = (await res.json()) as { id: string; key: string };
  expect(created.id).toMatch(SESSION_ID_PATTERN);
  // Read back, so the creation's writes are done before the state is measured.
  expect((await fetch(`${url}/v1/sessions/${created.id}`, { headers: { authorization: `Bearer ${created.key}` } })).status).toBe(200);
  return created;
}

describe("probing unknown ids of a Worker run as deployed", () => {
  let dev: WranglerDev;

  beforeAll(async () => {
    dev = await startWranglerDev({ local: false, vars: { ALLOW_ANONYMOUS_SESSIONS: "true" } });
  }, 90_000);
  afterAll(async () => {
    await dev?.stop();
  });

  it("answers 404 on every route and leaves the Durable Object files as they were", async () => {
    const session = await createSession(dev.url);
    // Signed with the Worker's own secret, but no session was ever created under it.
    const neverCreated = await issueSessionId({ SIGNING_SECRET: DEPLOYED_TEST_SIGNING_SECRET });
    const before = durableObjectFiles(dev.persistTo);
    expect(Object.keys(before).length).toBeGreaterThan(0); // the session above has its database

    expect(await probeAll(dev.url, forgedIds([session.id, neverCreated]))).toBeGreaterThan(100);
    expect(durableObjectFiles(dev.persistTo)).toEqual(before);

    // The measurement sees what the check prevents: an id that passes it addresses an object, and that
    // alone makes a database.
    expect((await fetch(`${dev.url}/v1/sessions/${neverCreated}`)).status).toBe(404);
    expect(Object.keys(durableObjectFiles(dev.persistTo)).length).toBeGreaterThan(Object.keys(before).length);
  });
});

describe("probing unknown ids under npm start's local mode, with no SIGNING_SECRET", () => {
  const persistTo = mkdtempSync(join(tmpdir(), "edge-agent-ids-"));
  let dev: WranglerDev | undefined;

  afterAll(async () => {
    await dev?.stop();
    rmSync(persistTo, { recursive: true, force: true });
  });

  it("keeps its generated secret across a restart, and probes leave the Durable Object files as they were", async () => {
    dev = await startWranglerDev({ persistTo });
    // Before anything was issued there is no secret: a probe must not make one, nor any object's database
    // (the namespaces' own metadata files are there from the start).
    const fresh = durableObjectFiles(persistTo);
    await probeAll(dev.url, forgedIds([]));
    expect(durableObjectFiles(persistTo)).toEqual(fresh);
    expect(Object.keys(fresh).filter((path) => !/\/metadata\.sqlite/.test(path))).toEqual([]);

    const session = await createSession(dev.url);
    await dev.stop();
    dev = await startWranglerDev({ persistTo });
    const res = await fetch(`${dev.url}/v1/sessions/${session.id}`, { headers: { authorization: `Bearer ${session.key}` } });
    expect(res.status).toBe(200);

    const before = durableObjectFiles(persistTo);
    await probeAll(dev.url, forgedIds([session.id]));
    expect(durableObjectFiles(persistTo)).toEqual(before);
  }, 120_000);
});
