/**
 * The tool registry routes: `GET /v1/tools` (bundled and deployed tools and the MCP servers' tools for
 * anyone; with the API token, every written tool, drafts of every session included), and the operator's `GET /v1/tools/:name` (a
 * written tool's source, spec and checks) and `POST /v1/tools/:name/reject` (marks it rejected and drops
 * the draft from the session that wrote it). Mounted by app.ts, whose token check it is given.
 */
import type { Context, Hono } from "hono";
import type { AppEnv } from "../env.ts";
import { TOOL_NAME_PATTERN } from "../core/tool-store.ts";
import { secretMatches } from "../credentials.ts";
import { describeMcpServers } from "../mcp/mcp-catalog.ts";
import type { ToolList } from "../wire/tool-list.ts";
import { bundledToolNames } from "../tools/catalog.ts";
import { describeWrittenTools } from "../tools/written/listing.ts";
import { inspectWrittenTool, rejectWrittenTool } from "../tools/written/operator.ts";
import { readPresentedKey } from "./auth.ts";
import { isLocalRequest } from "./access-policy.ts";
import { ApiError } from "./errors.ts";

type HonoEnv = { Bindings: AppEnv };
type TokenCheck = (c: Context<HonoEnv>) => Promise<void>;

/** Longest operator note kept on a rejected row. */
const MAX_REASON_CHARS = 1_000;

/** Whether the caller is the operator: the API token presented (or none configured, as on localhost). A wrong token is refused. */
async function isOperator(c: Context<HonoEnv>): Promise<boolean> {
  const token = c.env.API_TOKEN;
  if (!token) return isLocalRequest(c.req.url); // deployed without a token, nobody is the operator
  const presented = readPresentedKey(c.req.raw);
  if (presented === undefined) return false;
  if (!(await secretMatches(presented, token))) throw new ApiError(403, "forbidden", "Invalid API token");
  return true;
}

function toolName(c: Context<HonoEnv>): string {
  const name = c.req.param("name") ?? "";
  if (!TOOL_NAME_PATTERN.test(name)) throw new ApiError(404, "not_found", `No written tool named ${JSON.stringify(name)}`);
  return name;
}

async function readReason(c: Context<HonoEnv>): Promise<string | undefined> {
  const text = await c.req.text();
  if (text.trim() === "") return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(400, "bad_request", "Body is not valid JSON");
  }
  const reason = (body as { reason?: unknown } | null)?.reason;
  if (reason !== undefined && typeof reason !== "string") throw new ApiError(400, "bad_request", "Invalid body: reason must be a string");
  return reason?.slice(0, MAX_REASON_CHARS);
}

export function mountToolRoutes(app: Hono<HonoEnv>, requireApiToken: TokenCheck): void {
  app.get("/v1/tools", async (c) => {
    const operator = await isOperator(c);
    const [{ draftRuntime, written }, mcp] = await Promise.all([describeWrittenTools(c.env), describeMcpServers(c.env.MCP_SERVERS, operator)]);
    // Drafts belong to the session that wrote them: their text and code are for the operator only.
    const visible = operator ? written : written.filter((t) => t.status === "deployed");
    return c.json({
      bundled: bundledToolNames().map((name) => ({ name, status: "bundled" })),
      written: visible,
      mcp: mcp.servers,
      ...(mcp.error ? { mcpError: mcp.error } : {}),
      draftRuntime,
    } satisfies ToolList);
  });

  app.get("/v1/tools/:name", async (c) => {
    await requireApiToken(c);
    const inspected = await inspectWrittenTool(c.env, toolName(c));
    if (!inspected) throw new ApiError(404, "not_found", `No written tool named "${c.req.param("name")}"`);
    return c.json(inspected);
  });

  app.post("/v1/tools/:name/reject", async (c) => {
    await requireApiToken(c);
    const name = toolName(c);
    const reason = await readReason(c);
    const outcome = await rejectWrittenTool(c.env, name, reason, new Date());
    switch (outcome.kind) {
      case "not_found":
        throw new ApiError(404, "not_found", `No written tool named "${name}"`);
      case "not_pending":
        throw new ApiError(409, "conflict", `Written tool "${name}" is ${outcome.status}; only a pending tool can be rejected`);
      case "rejected": {
        const sessionId = outcome.entry.author.sessionId;
        const dropped = sessionId ? await dropFromSession(c.env, sessionId, name) : false;
        return c.json({ name, version: outcome.entry.version, status: "rejected", droppedFromSession: dropped });
      }
      default: {
        const unknown: never = outcome;
        throw new Error(`unhandled ${JSON.stringify(unknown)}`);
      }
    }
  });
}

/** Asks the writing session to drop its draft; a session that is gone has nothing to drop. */
async function dropFromSession(env: AppEnv, sessionId: string, name: string): Promise<boolean> {
  try {
    return await env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(sessionId)).dropWrittenDraft(name);
  } catch (err) {
    console.warn("reject: the writing session could not drop its draft", sessionId, name, err);
    return false;
  }
}
