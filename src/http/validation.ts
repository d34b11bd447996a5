/**
 * Request validation as Hono middleware (hono/validator with the zod schemas of schemas.ts): JSON bodies,
 * path parameters and queries. Route files put these before their handler and read `c.req.valid(...)`.
 * Invariants: a state-changing route reads only `application/json` (or `+json`) bodies, so no form or
 * text/plain POST from a foreign page is parsed (415); a bad value is a 400 naming its field; a session id
 * this Worker did not issue (its tag does not check, src/signing/session-ids.ts) is the same 404 as an
 * unknown session, answered before any Durable Object is addressed.
 */
import type { Context, MiddlewareHandler } from "hono";
import { validator } from "hono/validator";
import * as z from "zod";
import { lazySchema, resolveSchema, type SchemaSource } from "../lazy-schema.ts";
import { ApiError } from "./errors.ts";
import type { HonoEnv } from "./hono-env.ts";
import { checkSessionId as checkIssued, type SessionId } from "../signing/session-ids.ts";
import { describeZodError, elicitationIdParam, mcpServerNameParam, toolCallIdParam } from "./schemas.ts";

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

const mediaType = (header: string | undefined): string => (header ?? "").split(";")[0]!.trim();

function parseWith<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ApiError(400, "bad_request", `Invalid ${what}: ${describeZodError(parsed.error)}`);
  return parsed.data;
}

const UNSUPPORTED = () => new ApiError(415, "unsupported_media_type", "Content-Type must be application/json");

/**
 * The JSON body, checked by `source`'s schema. `optional`: an empty body (no Content-Type, or a JSON
 * one) counts as `{}`; a non-empty body still has to be JSON.
 */
export function jsonBody<S extends z.ZodType>(source: SchemaSource<S>, options: { optional?: boolean } = {}) {
  const validate = validator("json", (value) => parseWith(resolveSchema(source), value, "body"));
  const gate: MiddlewareHandler<HonoEnv> = async (c, next) => {
    const type = mediaType(c.req.header("content-type"));
    const isJson = JSON_MEDIA_TYPE.test(type);
    if (options.optional && (type === "" || isJson) && (await c.req.text()).trim() === "") {
      c.req.addValidatedData("json", parseWith(resolveSchema(source), {}, "body") as object);
      return next();
    }
    if (!isJson) throw UNSUPPORTED();
    // The text read above is cached by Hono: the validator parses the same bytes.
    return (validate as unknown as MiddlewareHandler<HonoEnv>)(c, next);
  };
  return gate as unknown as typeof validate;
}

/** Routes that take no body: nothing, or an empty JSON object; never a form or text body. */
export const noBody = jsonBody(
  lazySchema(() => z.strictObject({})),
  { optional: true },
);

/** What an unknown session answers; an id this Worker did not issue gets exactly the same. */
export const sessionNotFound = () => new ApiError(404, "not_found", "Session not found");

/** `raw` as an id this Worker issued, else the unknown session's 404. */
export async function checkSessionId(env: HonoEnv["Bindings"], raw: string | undefined): Promise<SessionId> {
  const id = await checkIssued(env, raw);
  if (!id) throw sessionNotFound();
  return id;
}

/** `:id` of the session routes. */
export const sessionParam = validator("param", async (params: Record<string, string>, c: Context<HonoEnv>) => ({
  id: await checkSessionId(c.env, params.id),
}));

/** `:id` and `:toolCallId` of the approval route. */
export const toolCallParams = validator("param", async (params: Record<string, string>, c: Context<HonoEnv>) => ({
  id: await checkSessionId(c.env, params.id),
  toolCallId: parseWith(toolCallIdParam(), params.toolCallId, "tool call id"),
}));

/** `:id` and `:name` of the session's MCP server routes. */
export const mcpServerParams = validator("param", async (params: Record<string, string>, c: Context<HonoEnv>) => ({
  id: await checkSessionId(c.env, params.id),
  name: parseWith(resolveSchema(mcpServerNameParam), params.name, "MCP server name"),
}));

export const elicitationParams = validator("param", async (params: Record<string, string>, c: Context<HonoEnv>) => ({
  id: await checkSessionId(c.env, params.id),
  elicitationId: parseWith(elicitationIdParam(), params.elicitationId, "elicitation id"),
}));

/** The query, checked by `source`'s schema. */
export const queryOf = <S extends z.ZodType>(source: SchemaSource<S>) =>
  validator("query", (value) => parseWith(resolveSchema(source), value, "query"));
