/**
 * The tool registry routes: `GET /v1/tools` (bundled and deployed tools and the MCP servers' tools for
 * anyone; with the API token, every written tool, drafts of every session included), and the operator's `GET /v1/tools/:name` (a
 * written tool's source, spec and checks) and `POST /v1/tools/:name/reject` (marks it rejected and drops
 * the draft from the session that wrote it). Mounted by app.ts; the operator check is operator-access.ts.
 */
import { Hono } from "hono";
import { validator } from "hono/validator";
import * as z from "zod";
import { readSetting } from "../config.ts";
import type { AppEnv } from "../env.ts";
import { TOOL_NAME_PATTERN } from "../core/index.ts";
import { describeMcpServers } from "../mcp/client/mcp-catalog.ts";
import { workerVault } from "../mcp/oauth/mcp-credentials-object.ts";
import type { ToolList } from "../wire/tool-list.ts";
import { bundledToolNames } from "../tools/catalog.ts";
import { describeWrittenTools } from "../tools/written/listing.ts";
import { inspectWrittenTool, rejectWrittenTool } from "../tools/written/operator.ts";
import { lazySchema } from "../lazy-schema.ts";
import { checkSessionId } from "../signing/session-ids.ts";
import { ApiError } from "./errors.ts";
import type { HonoEnv } from "./hono-env.ts";
import { isOperator, requireApiToken } from "./operator-access.ts";
import { sessionStub } from "./session-stub.ts";
import { jsonBody } from "./validation.ts";

/** Longest operator note kept on a rejected row. */
const MAX_REASON_CHARS = 1_000;

const rejectBody = lazySchema(() => z.strictObject({ reason: z.string().optional() }));

/** `:name`: a name that cannot be a tool's names no written tool (404, as for an unknown one). */
const toolNameParam = validator("param", (params: Record<string, string>) => {
  const name = params.name ?? "";
  if (!TOOL_NAME_PATTERN.test(name)) throw new ApiError(404, "not_found", `No written tool named ${JSON.stringify(name)}`);
  return { name };
});

export const toolRoutes = new Hono<HonoEnv>();

toolRoutes.get("/v1/tools", async (c) => {
  const operator = await isOperator(c);
  const [{ draftRuntime, written, partial }, mcp] = await Promise.all([
    describeWrittenTools(c.env),
    describeMcpServers(readSetting(c.env, "MCP_SERVERS"), operator, { vault: workerVault(c.env), origin: new URL(c.req.url).origin }),
  ]);
  // Drafts belong to the session that wrote them: their text and code are for the operator only.
  const visible = operator ? written : written.filter((t) => t.status === "deployed");
  return c.json({
    bundled: bundledToolNames().map((name) => ({ name, status: "bundled" })),
    written: visible,
    mcp: mcp.servers,
    ...(mcp.error ? { mcpError: mcp.error } : {}),
    ...(partial ? { writtenPartial: partial } : {}),
    draftRuntime,
  } satisfies ToolList);
});

toolRoutes.get(
  "/v1/tools/:name",
  async (c, next) => {
    await requireApiToken(c);
    await next();
  },
  toolNameParam,
  async (c) => {
    const { name } = c.req.valid("param");
    const inspected = await inspectWrittenTool(c.env, name);
    if (!inspected) throw new ApiError(404, "not_found", `No written tool named "${name}"`);
    return c.json(inspected);
  },
);

toolRoutes.post(
  "/v1/tools/:name/reject",
  async (c, next) => {
    await requireApiToken(c);
    await next();
  },
  toolNameParam,
  jsonBody(rejectBody, { optional: true }),
  async (c) => {
    const { name } = c.req.valid("param");
    const reason = c.req.valid("json").reason?.slice(0, MAX_REASON_CHARS);
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
  },
);

/** Asks the writing session to drop its draft; a session that is gone has nothing to drop. */
async function dropFromSession(env: AppEnv, sessionId: string, name: string): Promise<boolean> {
  // A hand-edited row may name anything: only an id this Worker issued may address (and so create) an object.
  const id = await checkSessionId(env, sessionId);
  if (!id) return false;
  try {
    return await sessionStub(env, id).dropWrittenDraft(name);
  } catch (err) {
    console.warn("reject: the writing session could not drop its draft", sessionId, name, err);
    return false;
  }
}
