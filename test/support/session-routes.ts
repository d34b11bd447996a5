/**
 * Every route that addresses a session by id, as a request a probe would send, and the answer an unknown
 * session gets. Shared by the workerd test of the router's id check (test/http/session-ids.test.ts) and
 * the wrangler dev test that counts the storage such probes leave (test/e2e/unknown-session-ids.test.ts).
 */
export type RouteProbe = {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** An operator route (API_TOKEN): an id the Worker issued is refused for the missing token before the session is asked. */
  operator?: true;
};

/** What an unknown session answers on every route, and what an id the Worker did not issue gets too. */
export const UNKNOWN_SESSION_BODY = JSON.stringify({ error: { code: "not_found", message: "Session not found" } });

const UUID = "5f0c6a52-9c1e-4c53-a3a1-2f1d2b0c9e11";
const OAUTH_RANDOM = "r".repeat(43);

/** Each route for `id`, with a (wrong) session key, JSON bodies and an Idempotency-Key on POSTs. */
export function sessionRouteProbes(id: string): RouteProbe[] {
  const s = `/v1/sessions/${id}`;
  const routes: [string, string, string?][] = [
    ["GET", s],
    ["PATCH", s, '{"requireApproval":[]}'],
    ["PUT", `${s}/token-budget`, '{"tokenBudget":1000}'],
    ["DELETE", s],
    ["GET", `${s}/messages`],
    ["POST", `${s}/messages`, '{"content":"hi"}'],
    ["POST", `${s}/follow-ups`, '{"content":"hi"}'],
    ["GET", `${s}/responses/next`],
    ["GET", `${s}/events`],
    ["GET", `${s}/events?key=sk_probe`],
    ["POST", `${s}/continue`],
    ["POST", `${s}/abort`],
    ["POST", `${s}/tool-calls/call_1/approval`, '{"approve":true}'],
    ["POST", `${s}/elicitations/elc_${UUID}`, '{"action":"cancel"}'],
    ["POST", `${s}/mcp-servers`, '{"name":"probe","url":"https://mcp.example/mcp"}'],
    ["DELETE", `${s}/mcp-servers/probe`],
    ["POST", `${s}/schedules`, '{"message":"later","delayMs":60000}'],
    ["GET", `${s}/schedules`],
    ["DELETE", `${s}/schedules/${UUID}`],
    ["POST", `${s}/chat`, '{"messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":"hi"}]}]}'],
    ["GET", `${s}/chat/chat-1/stream`],
    ["GET", `/v1/mcp/oauth/callback?state=s.${id}.${OAUTH_RANDOM}&code=the-code`],
  ];
  return routes.map(([method, path, body]) => ({
    method,
    path,
    body,
    ...(path.endsWith("/token-budget") ? { operator: true as const } : {}),
    headers: {
      authorization: `Bearer sk_${"k".repeat(43)}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(method === "POST" ? { "idempotency-key": "probe-1" } : {}),
    },
  }));
}

/** `id` with its last character changed: the same shape, another tag. */
export const retagged = (id: string): string => `${id.slice(0, -1)}${id.endsWith("A") ? "B" : "A"}`;
