/**
 * The child id of a sub-agent call and the nesting limit's reader, in plain Node: the id is derived from
 * the whole call identity and the parent's key hash, is signed like every issued id (the router accepts
 * it), and never depends on one part alone; MAX_SUBAGENT_DEPTH reads whole numbers (zero included) and falls back to 2.
 */
import { describe, expect, it } from "vitest";
import { readSetting } from "../../src/config.ts";
import { childSessionId, type ChildIdentity } from "../../src/session/sub-agents/sub-agent-id.ts";
import { checkSessionId, SESSION_ID_PATTERN } from "../../src/signing/session-ids.ts";

const env = { SIGNING_SECRET: "sub-agent-id-test-secret-0123456789abcdef" };
const childOf = (identity: ChildIdentity) => childSessionId(env, identity);

const call: ChildIdentity = { parentId: "s_AAAAAAAAAAAAAAAAAAAAAA", runId: "run-1", toolCallId: "call_0", parentKeyHash: "ab".repeat(32) };

describe("a sub-agent call's child session id", () => {
  it("is the same for the same call and passes the router's check", async () => {
    const id = await childOf(call);
    expect(id).toMatch(SESSION_ID_PATTERN);
    expect(await checkSessionId(env, id)).toBe(id);
    expect(await childOf({ ...call })).toBe(id);
  });

  it("does not pass under another deployment's secret", async () => {
    const id = await childOf(call);
    expect(await checkSessionId({ SIGNING_SECRET: "another-deployment-secret-0123456789abcd" }, id)).toBeUndefined();
  });

  it("changes with every part of the identity, the parent's key hash included", async () => {
    const id = await childOf(call);
    const variants: ChildIdentity[] = [
      { ...call, parentId: "s_BAAAAAAAAAAAAAAAAAAAAA" },
      { ...call, runId: "run-2" },
      { ...call, toolCallId: "call_1" },
      { ...call, parentKeyHash: "cd".repeat(32) },
      // Parts are kept apart: moving characters between them is another identity.
      { ...call, runId: "run-1call_0", toolCallId: "" },
    ];
    const others = await Promise.all(variants.map(childOf));
    expect(new Set([id, ...others]).size).toBe(variants.length + 1);
  });
});

describe("MAX_SUBAGENT_DEPTH", () => {
  it("reads a whole number of levels, zero included, and defaults to 2", () => {
    expect(readSetting({}, "MAX_SUBAGENT_DEPTH")).toBe(2);
    expect(readSetting({ MAX_SUBAGENT_DEPTH: " 3 " }, "MAX_SUBAGENT_DEPTH")).toBe(3);
    expect(readSetting({ MAX_SUBAGENT_DEPTH: "0" }, "MAX_SUBAGENT_DEPTH")).toBe(0);
    for (const bad of ["", "-1", "1.5", "two", "9999"]) expect(readSetting({ MAX_SUBAGENT_DEPTH: bad }, "MAX_SUBAGENT_DEPTH")).toBe(2);
  });
});
