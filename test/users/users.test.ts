/**
 * Signed-in users end to end in workerd, with a real JWKS server and tokens signed by the test: sessions
 * that belong to a user and open with their token, each refused token's reason in the operator's log and not
 * in the answer, another user's sessions answering as unknown ones on every route, a sub-agent's child that
 * belongs to its parent's user but is not listed, the list of a user's sessions and its paging, a memory
 * shared by one user's sessions and never across users, its limits, and the operator's erase.
 */
import { createExecutionContext, env, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { exportSPKI, generateKeyPair, importJWK, SignJWT } from "jose";
import { describe, expect, inject, it, vi } from "vitest";
import { app } from "../../src/http/app.ts";
import { issueSessionId } from "../../src/signing/session-ids.ts";
import type { MockReply } from "../../support/mock-openai-server.ts";
import { sessionRouteProbes } from "../support/session-routes.ts";
import { USERS_API_TOKEN, USERS_AUDIENCE, USERS_ISSUER } from "./settings.ts";
import { call, createWith, secondsFromNow, tokenFor } from "./support.ts";

const user = () => `user-${crypto.randomUUID()}`;
const NOT_FOUND = JSON.stringify({ error: { code: "not_found", message: "Session not found" } });

type Scripted = { id: string; key: string; scriptId: string };

/** A session of the user of `token` whose model replies are scripted. */
async function scriptedSession(token: string): Promise<Scripted> {
  const scriptId = crypto.randomUUID();
  return { ...(await createWith(token, { systemPrompt: `Test agent [script:${scriptId}]` })), scriptId };
}

/** One turn: the model makes `calls`, then answers; resolves with the tool results' texts and error flags. */
async function turn(s: Scripted, token: string, text: string, calls: { name: string; arguments: unknown }[]) {
  const replies: MockReply[] = [
    ...(calls.length
      ? [{ toolCalls: calls.map((c, i) => ({ id: `c${i}_${crypto.randomUUID().slice(0, 8)}`, name: c.name, arguments: c.arguments })) }]
      : []),
    { text: "done" },
  ] as MockReply[];
  const scripted = await fetch(`${inject("controlUrl")}/scripts/${s.scriptId}`, { method: "POST", body: JSON.stringify(replies) });
  expect(scripted.ok).toBe(true);
  const before = ((await (await call(`/v1/sessions/${s.id}`, { token })).json()) as { messages: unknown[] }).messages.length;
  expect((await call(`/v1/sessions/${s.id}/messages`, { method: "POST", token, json: { content: text } })).status).toBe(202);
  const answer = await call(`/v1/sessions/${s.id}/responses/next?waitMs=10000`, { token });
  expect(answer.status).toBe(200);
  const snapshot = (await (await call(`/v1/sessions/${s.id}`, { token })).json()) as {
    messages: { role: string; isError?: boolean; content: { text?: string }[] }[];
  };
  return snapshot.messages
    .slice(before)
    .filter((m) => m.role === "toolResult")
    .map((m) => ({ isError: m.isError ?? false, text: m.content.map((c) => c.text ?? "").join("") }));
}

describe("sign-in", () => {
  it("creates a session that belongs to the user; their token and the session key open it", async () => {
    const alice = user();
    const token = await tokenFor(alice, {}, "ES256");
    const { id, key } = await createWith(token);
    for (const bearer of [token, key]) {
      const res = await call(`/v1/sessions/${id}`, { token: bearer });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id, userId: alice });
    }
    // A session of no user says so.
    const anonymous = (await (await call("/v1/sessions", { method: "POST" })).json()) as { id: string; key: string };
    expect(await (await call(`/v1/sessions/${anonymous.id}`, { token: anonymous.key })).json()).toMatchObject({ userId: null });
  });

  it("answers a refused token with 401 and creates nothing", async () => {
    const bob = user();
    const refused = [
      await tokenFor(bob, { exp: secondsFromNow(-600) }),
      await tokenFor(bob, { nbf: secondsFromNow(600) }),
      await tokenFor(bob, { aud: "someone-else" }),
      await tokenFor(bob, { iss: "https://evil.test/" }),
      `${btoa(JSON.stringify({ alg: "none", typ: "JWT" })).replace(/=+$/, "")}.${btoa(JSON.stringify({ sub: bob })).replace(/=+$/, "")}.`,
    ];
    for (const token of refused) {
      const res = await call("/v1/sessions", { method: "POST", token });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: { code: "unauthorized", message: "Invalid or expired token" } });
    }
    expect(await (await call("/v1/sessions", { token: await tokenFor(bob) })).json()).toEqual({ sessions: [] });
  });

  it("names each refusal's reason in the operator's log, never to the caller", async () => {
    const kate = user();
    const rsa = inject("userKeys").find((k) => k.alg === "RS256")!;
    const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = rsa.privateJwk;
    const publicPem = await exportSPKI((await importJWK(publicJwk, "RS256")) as CryptoKey);
    const unsigned = (claims: object) =>
      `${btoa(JSON.stringify({ alg: "none", typ: "JWT", kid: rsa.kid })).replace(/=+$/, "")}.${btoa(JSON.stringify(claims)).replace(/=+$/, "")}.`;
    const valid = { sub: kate, iss: USERS_ISSUER, aud: USERS_AUDIENCE, exp: secondsFromNow(3600) };
    const stranger = await generateKeyPair("RS256");
    const cases: [string, string, RegExp][] = [
      ["expired", await tokenFor(kate, { exp: secondsFromNow(-600) }), /^expired$/],
      ["not yet valid", await tokenFor(kate, { nbf: secondsFromNow(600) }), /^claim nbf/],
      ["wrong issuer", await tokenFor(kate, { iss: "https://evil.test/" }), /^claim iss/],
      ["wrong audience", await tokenFor(kate, { aud: "someone-else" }), /^claim aud/],
      ["no exp", await tokenFor(kate, { exp: undefined }), /^claim exp/],
      ["alg none", unsigned(valid), /^algorithm not allowed$/],
      [
        "HMAC signed with the public key",
        await new SignJWT(valid).setProtectedHeader({ alg: "HS256", kid: rsa.kid }).sign(new TextEncoder().encode(publicPem)),
        /^algorithm not allowed$/,
      ],
      [
        "unknown key",
        await new SignJWT(valid).setProtectedHeader({ alg: "RS256", kid: "nobody" }).sign(stranger.privateKey),
        /^no key with this kid$/,
      ],
    ];
    const warn = vi.spyOn(console, "warn");
    try {
      for (const [name, token, reason] of cases) {
        warn.mockClear();
        const res = await call("/v1/sessions", { method: "POST", token });
        expect({ name, status: res.status, body: await res.json() }).toEqual({
          name,
          status: 401,
          body: { error: { code: "unauthorized", message: "Invalid or expired token" } },
        });
        const logged = warn.mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>);
        expect(logged, name).toEqual([
          { event: "userTokenRefused", from: "bearer", reason: expect.stringMatching(reason), method: "POST", path: "/v1/sessions" },
        ]);
      }
    } finally {
      warn.mockRestore();
    }
    expect(await (await call("/v1/sessions", { token: await tokenFor(kate) })).json()).toEqual({ sessions: [] });
  });

  it("answers a token on a Worker whose sign-in is set up in part with 500 naming the missing var", async () => {
    const partial = { ...env, AUTH_AUDIENCE: "" };
    const send = async (path: string, init: RequestInit) => {
      const ctx = createExecutionContext();
      const res = await app.fetch(new Request(`https://edge.test${path}`, init), partial, ctx);
      await waitOnExecutionContext(ctx);
      return { status: res.status, body: await res.json() };
    };
    const token = await tokenFor(user());
    const misconfigured = {
      status: 500,
      body: {
        error: { code: "misconfigured", message: expect.stringMatching(/^Sign-in is configured in part: AUTH_AUDIENCE is not set/) },
      },
    };
    expect(await send("/v1/sessions", { method: "POST", headers: { authorization: `Bearer ${token}` } })).toEqual(misconfigured);
    expect(await send("/v1/sessions", { method: "POST", headers: { "cf-access-jwt-assertion": token } })).toEqual(misconfigured);
    expect(await send("/v1/memories", {})).toEqual(misconfigured);
    // The operator is not a user: their token still creates sessions.
    expect((await send("/v1/sessions", { method: "POST", headers: { authorization: `Bearer ${USERS_API_TOKEN}` } })).status).toBe(201);
  });

  it("takes the token from Cf-Access-Jwt-Assertion, which must verify like any other", async () => {
    const carol = user();
    const created = await call("/v1/sessions", { method: "POST", headers: { "cf-access-jwt-assertion": await tokenFor(carol) } });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    expect(
      await (await call(`/v1/sessions/${id}`, { headers: { "cf-access-jwt-assertion": await tokenFor(carol) } })).json(),
    ).toMatchObject({
      userId: carol,
    });
    const [header, body] = (await tokenFor(carol)).split(".");
    const forged = `${header}.${body}.${"A".repeat(342)}`;
    expect((await call("/v1/sessions", { method: "POST", headers: { "cf-access-jwt-assertion": forged } })).status).toBe(401);
  });

  it("lets the operator create a session for a userId, and nobody else name one", async () => {
    const dave = user();
    const { id } = await createWith(USERS_API_TOKEN, { userId: dave });
    expect(await (await call(`/v1/sessions/${id}`, { token: await tokenFor(dave) })).json()).toMatchObject({ userId: dave });
    expect((await call("/v1/sessions", { method: "POST", json: { userId: dave } })).status).toBe(403);
    expect((await call("/v1/sessions", { method: "POST", token: await tokenFor(user()), json: { userId: dave } })).status).toBe(403);
  });

  it("scopes an Idempotency-Key on creation to the user", async () => {
    const headers = { "idempotency-key": `create-${crypto.randomUUID()}` };
    const erin = await tokenFor(user());
    const first = (await (await call("/v1/sessions", { method: "POST", token: erin, headers })).json()) as { id: string };
    const again = (await (await call("/v1/sessions", { method: "POST", token: erin, headers })).json()) as { id: string };
    const other = (await (await call("/v1/sessions", { method: "POST", token: await tokenFor(user()), headers })).json()) as { id: string };
    expect(again.id).toBe(first.id);
    expect(other.id).not.toBe(first.id);
  });
});

describe("another user's session", () => {
  it("answers every route exactly as an unknown session does", async () => {
    const owner = await tokenFor(user());
    const stranger = await tokenFor(user());
    const { id } = await createWith(owner);
    const unknown = await issueSessionId(env);
    const answer = async (sessionId: string, probe: ReturnType<typeof sessionRouteProbes>[number]) => {
      const headers = { ...probe.headers, authorization: `Bearer ${stranger}` };
      expect(probe.path).toContain(sessionId);
      const res = await call(probe.path, {
        method: probe.method,
        headers,
        ...(probe.body ? { body: probe.body } : {}),
      });
      return { status: res.status, body: await res.text() };
    };
    const probes = sessionRouteProbes(id).filter((p) => !p.path.includes("/oauth/"));
    const reference = sessionRouteProbes(unknown).filter((p) => !p.path.includes("/oauth/"));
    for (const [i, probe] of probes.entries()) {
      const theirs = await answer(id, probe);
      expect(theirs, `${probe.method} ${probe.path}`).toEqual(await answer(unknown, reference[i]!));
      // An operator route refuses a user's token before any session is asked: the same answer either way.
      if (!probe.operator) expect(theirs, `${probe.method} ${probe.path}`).toEqual({ status: 404, body: NOT_FOUND });
    }
    // The operator's route of a session refuses a user's token before any session is looked at: the same answer either way.
    const budget = (sessionId: string) =>
      call(`/v1/sessions/${sessionId}/token-budget`, { method: "PUT", token: stranger, json: { tokenBudget: 10 } }).then(async (r) => ({
        status: r.status,
        body: await r.text(),
      }));
    const theirBudget = await budget(id);
    expect(theirBudget.status).toBe(403);
    expect(theirBudget).toEqual(await budget(unknown));
    // Still there for its owner.
    expect((await call(`/v1/sessions/${id}`, { token: owner })).status).toBe(200);
  });

  it("opens every route for its owner's token, as the session key does", async () => {
    const owner = await tokenFor(user());
    const { id } = await createWith(owner);
    const probes = sessionRouteProbes(id).filter((p) => !p.path.includes("/oauth/"));
    const deletion = probes.find((p) => p.method === "DELETE" && p.path === `/v1/sessions/${id}`)!;
    for (const probe of [...probes.filter((p) => p !== deletion), deletion]) {
      const res = await call(probe.path, {
        method: probe.method,
        // A key of its own per request: one shared key would answer the later routes 422 before they run.
        headers: {
          ...probe.headers,
          authorization: `Bearer ${owner}`,
          ...(probe.method === "POST" ? { "idempotency-key": crypto.randomUUID() } : {}),
        },
        ...(probe.body ? { body: probe.body } : {}),
      });
      // The events stream stays open: its headers are the answer.
      const body = res.headers.get("content-type")?.startsWith("text/event-stream") ? (await res.body?.cancel(), "") : await res.text();
      expect({ route: `${probe.method} ${probe.path}`, body }).not.toEqual({ route: `${probe.method} ${probe.path}`, body: NOT_FOUND });
      expect(res.status, `${probe.method} ${probe.path}: ${body}`).not.toBe(401);
      expect(res.status, `${probe.method} ${probe.path}: ${body}`).toBeLessThan(500);
    }
    expect((await call(`/v1/sessions/${id}`, { token: owner })).status).toBe(410);
  });

  it("tells only its owner that it was deleted (410); to anyone else it is unknown (404)", async () => {
    const owner = await tokenFor(user());
    const { id, key } = await createWith(owner);
    expect((await call(`/v1/sessions/${id}`, { method: "DELETE", token: owner })).status).toBe(200);
    expect((await call(`/v1/sessions/${id}`, { token: owner })).status).toBe(410);
    expect((await call(`/v1/sessions/${id}`, { token: key })).status).toBe(410);
    for (const token of [await tokenFor(user()), "sk_wrong", undefined]) {
      const res = await call(`/v1/sessions/${id}`, token === undefined ? {} : { token });
      expect({ status: res.status, body: await res.text() }).toEqual({ status: 404, body: NOT_FOUND });
    }
  });

  it("is not opened by a user's token when it belongs to no user", async () => {
    const anonymous = (await (await call("/v1/sessions", { method: "POST" })).json()) as { id: string };
    const res = await call(`/v1/sessions/${anonymous.id}`, { token: await tokenFor(user()) });
    expect({ status: res.status, body: await res.text() }).toEqual({ status: 404, body: NOT_FOUND });
  });
});

describe("a sub-agent's child", () => {
  it("belongs to its parent's user, who opens it, and is never listed", async () => {
    const liam = user();
    const token = await tokenFor(liam);
    const parent = await scriptedSession(token);
    const childScript = crypto.randomUUID();
    const scripted = await fetch(`${inject("controlUrl")}/scripts/${childScript}`, {
      method: "POST",
      body: JSON.stringify([{ text: "It is noon in Tokyo." }] satisfies MockReply[]),
    });
    expect(scripted.ok).toBe(true);
    const [result] = await turn(parent, token, "ask the researcher", [
      { name: "researcher", arguments: { task: `What time is it in Tokyo? [script:${childScript}]` } },
    ]);
    expect(result).toEqual({ isError: false, text: "It is noon in Tokyo." });
    const snapshot = (await (await call(`/v1/sessions/${parent.id}`, { token })).json()) as {
      messages: { role: string; toolName?: string; details?: { sessionId?: string } }[];
    };
    const childId = snapshot.messages.find((m) => m.role === "toolResult" && m.toolName === "researcher")?.details?.sessionId;
    expect(childId).toEqual(expect.any(String));

    const child = await call(`/v1/sessions/${childId}`, { token });
    expect(child.status).toBe(200);
    expect(await child.json()).toMatchObject({ id: childId, userId: liam, subAgent: { parentId: parent.id } });
    const stranger = await call(`/v1/sessions/${childId}`, { token: await tokenFor(user()) });
    expect({ status: stranger.status, body: await stranger.text() }).toEqual({ status: 404, body: NOT_FOUND });

    const listed = (await (await call("/v1/sessions", { token })).json()) as { sessions: { id: string }[] };
    expect(listed.sessions.map((s) => s.id)).toEqual([parent.id]);
  });
});

describe("GET /v1/sessions", () => {
  it("lists the user's own sessions, most recently active first, with a title, paged, without deleted ones", async () => {
    const frank = await tokenFor(user());
    const a = await scriptedSession(frank);
    const b = await scriptedSession(frank);
    const c = await scriptedSession(frank);
    await createWith(await tokenFor(user())); // someone else's
    await turn(a, frank, `  Plan a trip\nto Oslo in ${"x".repeat(100)}`, []);

    type Page = {
      sessions: { id: string; title: string | null; status: string; createdAt: number; lastActiveAt: number }[];
      next?: string;
    };
    const all = (await (await call("/v1/sessions", { token: frank })).json()) as Page;
    expect(all.sessions.map((s) => s.id)).toEqual([a.id, c.id, b.id]);
    expect(all.sessions[0]!.title).toBe(`Plan a trip to Oslo in ${"x".repeat(57)}`);
    expect(all.sessions[0]!.status).toBe("idle");
    expect(all.sessions[1]!.title).toBeNull();
    expect(all.next).toBeUndefined();

    const first = (await (await call("/v1/sessions?limit=2", { token: frank })).json()) as Page;
    expect(first.sessions.map((s) => s.id)).toEqual([a.id, c.id]);
    const second = (await (await call(`/v1/sessions?limit=2&before=${encodeURIComponent(first.next!)}`, { token: frank })).json()) as Page;
    expect(second).toEqual({ sessions: [expect.objectContaining({ id: b.id })] });

    expect((await call(`/v1/sessions/${c.id}`, { method: "DELETE", token: frank })).status).toBe(200);
    const after = (await (await call("/v1/sessions", { token: frank })).json()) as Page;
    expect(after.sessions.map((s) => s.id)).toEqual([a.id, b.id]);

    const garbled = await call("/v1/sessions?before=page-2", { token: frank });
    expect(garbled.status).toBe(400);
    expect(((await garbled.json()) as { error: { code: string; message: string } }).error).toEqual({
      code: "bad_request",
      message: expect.stringContaining("before"),
    });
  });

  it("forgets a row idle past the session lifetime, unless a schedule due later keeps the session alive", async () => {
    const mia = user();
    const token = await tokenFor(mia);
    const idle = await createWith(token);
    const waiting = await createWith(token);
    const day = 86_400_000;
    const scheduled = await call(`/v1/sessions/${waiting.id}/schedules`, {
      method: "POST",
      token,
      json: { message: "Remind me about the dentist", delayMs: 45 * day },
    });
    expect(scheduled.status).toBe(201);
    // 31 days pass without activity (the default lifetime is 30): the index's rows say so.
    const store = env.USER_STORE.get(env.USER_STORE.idFromName(`user:${mia}`));
    await runInDurableObject(store, (_instance, state) => {
      state.storage.sql.exec(`UPDATE sessions SET last_active_at = ?`, Date.now() - 31 * day);
    });
    const listed = (await (await call("/v1/sessions", { token })).json()) as { sessions: { id: string }[] };
    expect(listed.sessions.map((s) => s.id)).toEqual([waiting.id]);
    expect(listed.sessions.map((s) => s.id)).not.toContain(idle.id);
    // The session the schedule keeps is alive, and still reachable from the list and the operator's erase.
    expect((await call(`/v1/sessions/${waiting.id}`, { token })).status).toBe(200);
  });

  it("gives a store made before keep_until the column, keeping its rows", async () => {
    const nina = user();
    const token = await tokenFor(nina);
    const { id } = await createWith(token);
    const store = env.USER_STORE.get(env.USER_STORE.idFromName(`user:${nina}`));
    const columns = await runInDurableObject(store, (instance, state) => {
      state.storage.sql.exec(`ALTER TABLE sessions DROP COLUMN keep_until`);
      (instance as unknown as { createTables(): void }).createTables(); // what the next wake runs
      return state.storage.sql
        .exec<{ name: string }>(`SELECT name FROM pragma_table_info('sessions')`)
        .toArray()
        .map((c) => c.name);
    });
    expect(columns).toContain("keep_until");
    const listed = (await (await call("/v1/sessions", { token })).json()) as { sessions: { id: string }[] };
    expect(listed.sessions.map((s) => s.id)).toEqual([id]);
  });

  it("creates no session its list cannot hold: a failed entry fails the creation, which a retry completes", async () => {
    const otto = user();
    const token = await tokenFor(otto);
    const store = env.USER_STORE.get(env.USER_STORE.idFromName(`user:${otto}`));
    const sql = (statement: string) =>
      runInDurableObject(store, (instance, state) => {
        state.storage.sql.exec(statement);
        if (statement.startsWith("DROP")) return;
        (instance as unknown as { createTables(): void }).createTables();
      });
    await sql("DROP TABLE sessions"); // the next index write fails
    const headers = { "idempotency-key": `create-${crypto.randomUUID()}` };
    const failed = await call("/v1/sessions", { method: "POST", token, headers });
    expect(failed.status).toBe(500);
    await sql("SELECT 1"); // the table is back
    const created = await call("/v1/sessions", { method: "POST", token, headers });
    expect(created.status).toBe(201);
    const { id, key } = (await created.json()) as { id: string; key: string };
    const listed = (await (await call("/v1/sessions", { token })).json()) as { sessions: { id: string }[] };
    expect(listed.sessions.map((s) => s.id)).toEqual([id]);
    expect((await call(`/v1/sessions/${id}`, { token: key })).status).toBe(200);
  });

  it("needs a user's token", async () => {
    expect((await call("/v1/sessions")).status).toBe(401);
    expect((await call("/v1/sessions", { token: USERS_API_TOKEN })).status).toBe(401);
  });
});

describe("memory", () => {
  it("is shared by one user's sessions and never reaches another user's", async () => {
    const gina = await tokenFor(user());
    const first = await scriptedSession(gina);
    const [kept] = await turn(first, gina, "remember this", [
      { name: "remember", arguments: { text: "Gina is vegetarian and lives in Bergen." } },
    ]);
    expect(kept!.isError).toBe(false);
    const { memoryId } = JSON.parse(kept!.text) as { memoryId: string };

    const second = await scriptedSession(gina);
    const [found] = await turn(second, gina, "what do I eat?", [
      { name: "recall", arguments: { query: "what does she eat, vegetarian?" } },
    ]);
    expect(JSON.parse(found!.text)).toMatchObject({ memories: [{ id: memoryId, text: "Gina is vegetarian and lives in Bergen." }] });

    const hank = await tokenFor(user());
    const theirs = await scriptedSession(hank);
    const [nothing] = await turn(theirs, hank, "what do I eat?", [{ name: "recall", arguments: { query: "vegetarian Bergen" } }]);
    expect(JSON.parse(nothing!.text)).toEqual({ memories: [] });
    expect(await (await call("/v1/memories?query=vegetarian", { token: hank })).json()).toEqual({ memories: [] });
    // Nor can Hank delete it.
    expect((await call(`/v1/memories/${memoryId}`, { method: "DELETE", token: hank })).status).toBe(404);

    const listed = (await (await call("/v1/memories?query=Bergen", { token: gina })).json()) as { memories: unknown[] };
    expect(listed.memories).toEqual([
      { id: memoryId, text: "Gina is vegetarian and lives in Bergen.", createdAt: expect.any(Number), sessionId: first.id },
    ]);
    expect((await call(`/v1/memories/${memoryId}`, { method: "DELETE", token: gina })).status).toBe(200);
    expect(await (await call("/v1/memories?query=Bergen", { token: gina })).json()).toEqual({ memories: [] });
    const [gone] = await turn(second, gina, "and now?", [{ name: "recall", arguments: { query: "vegetarian" } }]);
    expect(JSON.parse(gone!.text)).toEqual({ memories: [] });
  });

  it("forgets a memory through the forget tool at once, and only the user's own", async () => {
    const olga = await tokenFor(user());
    const s = await scriptedSession(olga);
    const kept = await turn(s, olga, "remember two things", [
      { name: "remember", arguments: { text: "Olga plays the cello." } },
      { name: "remember", arguments: { text: "Olga's cello teacher is in Tromsø." } },
    ]);
    const [cello, teacher] = kept.map((r) => (JSON.parse(r.text) as { memoryId: string }).memoryId);

    // Another user's session cannot forget it: the id names nothing in their store.
    const peter = await tokenFor(user());
    const theirs = await scriptedSession(peter);
    const [refused] = await turn(theirs, peter, "forget hers", [{ name: "forget", arguments: { memoryId: cello } }]);
    expect(refused).toEqual({ isError: true, text: expect.stringContaining(`No memory with id ${cello}`) });

    const [forgot] = await turn(s, olga, "forget the cello", [{ name: "forget", arguments: { memoryId: cello } }]);
    const [found] = await turn(s, olga, "what about the cello?", [{ name: "recall", arguments: { query: "cello" } }]);
    expect(forgot).toEqual({ isError: false, text: `Forgot ${cello}.` });
    expect((JSON.parse(found!.text) as { memories: { id: string }[] }).memories.map((m) => m.id)).toEqual([teacher]);
    const [again] = await turn(s, olga, "forget it again", [{ name: "forget", arguments: { memoryId: cello } }]);
    expect(again!.isError).toBe(true);
  });

  it("keeps at most MAX_MEMORIES per user and 2,000 characters a memory, naming the limit", async () => {
    const ivan = await tokenFor(user());
    const s = await scriptedSession(ivan);
    const results = await turn(
      s,
      ivan,
      "remember four things",
      ["one", "two", "three", "four"].map((n) => ({ name: "remember", arguments: { text: `fact ${n}` } })),
    );
    expect(results.map((r) => r.isError)).toEqual([false, false, false, true]);
    expect(results[3]!.text).toContain("MAX_MEMORIES");
    const [tooLong] = await turn(s, ivan, "remember a novel", [{ name: "remember", arguments: { text: "x".repeat(2_001) } }]);
    expect(tooLong!.isError).toBe(true);
    const { memories } = (await (await call("/v1/memories", { token: ivan })).json()) as { memories: unknown[] };
    expect(memories).toHaveLength(3);
  });

  it("is not offered to a session of no user", async () => {
    const anonymous = (await (await call("/v1/sessions", { method: "POST" })).json()) as { id: string; key: string };
    const { tools } = (await (await call(`/v1/sessions/${anonymous.id}`, { token: anonymous.key })).json()) as { tools: string[] };
    expect(tools).not.toContain("remember");
    const mine = await createWith(await tokenFor(user()));
    const snapshot = (await (await call(`/v1/sessions/${mine.id}`, { token: mine.key })).json()) as { tools: string[] };
    expect(snapshot.tools).toEqual(expect.arrayContaining(["remember", "recall", "forget"]));
  });
});

describe("erasing a user", () => {
  it("shuts down every session of theirs and forgets their memory, in one operator call", async () => {
    const judy = `auth0|${user()}/with a slash`; // an IdP's sub may hold any character
    const token = await tokenFor(judy);
    const s = await scriptedSession(token);
    await turn(s, token, "remember", [{ name: "remember", arguments: { text: "Judy likes tea" } }]);
    const other = await createWith(token);
    expect((await call(`/v1/users/${encodeURIComponent(judy)}`, { method: "DELETE" })).status).toBe(401);
    expect((await call(`/v1/users/${encodeURIComponent(judy)}`, { method: "DELETE", token })).status).toBe(403);
    const erased = await call(`/v1/users/${encodeURIComponent(judy)}`, { method: "DELETE", token: USERS_API_TOKEN });
    expect(await erased.json()).toEqual({ userId: judy, erasedSessions: 2 });
    expect(await (await call("/v1/sessions", { token })).json()).toEqual({ sessions: [] });
    expect(await (await call("/v1/memories", { token })).json()).toEqual({ memories: [] });
    expect((await call(`/v1/sessions/${other.id}`, { token })).status).toBe(410);
  });

  it("erases the store only when no session it lists was left out, so one created meanwhile is shut down too", async () => {
    const quinn = user();
    const token = await tokenFor(quinn);
    const s = await scriptedSession(token);
    await turn(s, token, "remember", [{ name: "remember", arguments: { text: "Quinn takes the night train" } }]);
    const late = await createWith(token); // as if created while the operator's erase shut down `s`
    const store = env.USER_STORE.get(env.USER_STORE.idFromName(`user:${quinn}`));
    expect(await store.eraseAll([s.id])).toEqual({ erased: false, listed: [late.id] });
    expect((await (await call("/v1/memories", { token })).json()) as { memories: unknown[] }).toMatchObject({ memories: [{}] });

    const erased = await call(`/v1/users/${encodeURIComponent(quinn)}`, { method: "DELETE", token: USERS_API_TOKEN });
    expect(await erased.json()).toEqual({ userId: quinn, erasedSessions: 2 });
    for (const id of [s.id, late.id]) expect((await call(`/v1/sessions/${id}`, { token })).status).toBe(410);
    expect(await (await call("/v1/memories", { token })).json()).toEqual({ memories: [] });
  });
});
