/**
 * A malformed MCP_SERVERS holding a secret, against a Worker run as deployed (`wrangler dev` without
 * LOCAL_DEV), as a black box: every answer names where the value is wrong and never echoes its text.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startWranglerDev, type WranglerDev } from "../../support/wrangler-dev.ts";
import { errorOf, rawRequest } from "./support.ts";

const TOKEN = "sec-operator-token";
const SECRET = "sk-live-9e8d7c6b5a";
// The header's value is not quoted: V8's own message would quote the text around it.
const MALFORMED = `[{"name":"docs","url":"https://mcp.example.com/mcp","headers":{"authorization":Bearer ${SECRET}}}]`;
let dev: WranglerDev;

beforeAll(async () => {
  dev = await startWranglerDev({ local: false, vars: { API_TOKEN: TOKEN, ALLOW_ANONYMOUS_SESSIONS: "true", MCP_SERVERS: MALFORMED } });
}, 90_000);

afterAll(async () => {
  await dev?.stop();
});

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(`--- wrangler dev output ---\n${dev?.logs() ?? "(not started)"}`));
});

describe("a malformed MCP_SERVERS", () => {
  it("refuses session creation with a 500 naming the position, never the text", async () => {
    const res = await rawRequest(dev.url, "POST", "/v1/sessions");
    expect(res.status).toBe(500);
    const error = errorOf(res);
    expect(error.code).toBe("misconfigured");
    expect(error.message).toMatch(/^MCP_SERVERS is not valid JSON: the error is at position \d+ \(line 1, column \d+\)$/);
    expect(res.body).not.toContain(SECRET);
    expect(res.body).not.toContain("Bearer");
  });

  it("shows anyone only that it is misconfigured, and the operator where, never the text", async () => {
    const anonymous = await rawRequest(dev.url, "GET", "/v1/tools");
    expect(JSON.parse(anonymous.body)).toMatchObject({ mcpError: "MCP_SERVERS is misconfigured" });
    const operator = await rawRequest(dev.url, "GET", "/v1/tools", { authorization: `Bearer ${TOKEN}` });
    expect((JSON.parse(operator.body) as { mcpError: string }).mcpError).toMatch(/position \d+/);
    expect(operator.body).not.toContain(SECRET);
  });
});
