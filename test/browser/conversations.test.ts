/**
 * A signed-in user's conversations on the page, against `wrangler dev` with sign-in configured (a JWKS
 * server of the test's own): the token passed as `#token=` leaves the address bar, the page creates the
 * user's session, the Conversations panel lists their sessions with titles, opens another with the
 * user's token and deletes one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startJwksServer, type JwksServer } from "../support/jwks-server.ts";
import { claimsFor, testKey, type TestKey } from "../support/test-tokens.ts";
import { openWatchedPage } from "./support/browser.ts";
import { ChatPage, UI_TIMEOUT_MS } from "./support/chat-page.ts";
import { startStack, type Stack } from "./support/stack.ts";

const ISSUER = "https://id.example.test/";
const AUDIENCE = "edge-agent-browser";
const visible = { state: "visible", timeout: UI_TIMEOUT_MS } as const;

let jwks: JwksServer;
let key: TestKey;
let stack: Stack;

beforeAll(async () => {
  jwks = await startJwksServer();
  key = await testKey("browser-key", "ES256");
  jwks.setKeys([key.publicJwk]);
  stack = await startStack({ vars: { AUTH_JWKS_URL: `${jwks.url}/jwks.json`, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE } });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await jwks?.close();
});

describe("the conversations panel", () => {
  it("lists the user's sessions, opens one with their token and deletes one", async () => {
    const sub = `user-${crypto.randomUUID()}`;
    const token = await key.sign(claimsFor(sub, ISSUER, AUDIENCE));
    // A conversation of the user's from another device.
    const earlier = await fetch(`${stack.url}/v1/sessions`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
    const { id: earlierId } = (await earlier.json()) as { id: string };
    stack.llm.enqueue({ text: "Noted." });
    const sent = await fetch(`${stack.url}/v1/sessions/${earlierId}/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ content: "Plan a trip to Oslo" }),
    });
    expect(sent.status).toBe(202);

    const watched = await openWatchedPage(stack.browser);
    const chat = new ChatPage(watched.page);
    await chat.open(`${stack.url}/#token=${token}`);
    expect(new URL(watched.page.url()).hash).toBe("");
    const currentId = await watched.page.locator("#session-id").textContent();
    const entries = watched.page.locator("#conversations .conversation-entry");
    await watched.page.locator(`#conversations [data-session-id="${earlierId}"]`).waitFor(visible);
    await watched.page.locator(`#conversations [data-session-id="${currentId}"]`).waitFor(visible);
    expect(await entries.count()).toBe(2);

    await watched.page.getByRole("button", { name: "Plan a trip to Oslo", exact: true }).click();
    await watched.page.locator("#session-id", { hasText: earlierId }).waitFor(visible);
    await chat.userBubbles.filter({ hasText: "Plan a trip to Oslo" }).waitFor(visible);

    // The page keeps no copy of the token with the session: a reload opens it with the token the app
    // keeps current (here a newer one), not the one it was opened with, which expires.
    const stored = await watched.page.evaluate(() => localStorage.getItem("edge-agent.session") ?? "");
    expect(stored).toContain(earlierId);
    expect(stored).not.toContain(token);
    const renewed = await key.sign(claimsFor(sub, ISSUER, AUDIENCE, { jti: "renewed" }));
    await watched.page.evaluate((t) => localStorage.setItem("edge-agent.userToken", t), renewed);
    await chat.reload();
    await watched.page.locator("#session-id", { hasText: earlierId }).waitFor(visible);
    await chat.userBubbles.filter({ hasText: "Plan a trip to Oslo" }).waitFor(visible);

    await watched.page.getByRole("button", { name: "Delete conversation New conversation" }).click();
    await watched.page.locator(`#conversations [data-session-id="${currentId}"]`).waitFor({ state: "detached", timeout: UI_TIMEOUT_MS });
    expect(await entries.count()).toBe(1);
    await watched.context.close();
    expect(watched.errors).toEqual([]);
  });
});
