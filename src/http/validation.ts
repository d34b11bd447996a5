/**
 * Request validation as Hono middleware (hono/validator with the zod schemas of schemas.ts): JSON bodies,
 * path parameters and queries. Route files put these before their handler and read `c.req.valid(...)`.
 * Invariants: a state-changing route reads only `application/json` (or `+json`) bodies, so no form or
 * text/plain POST from a foreign page is parsed (415); a bad value is a 400 naming its field; a session id
 * not of the issued shape is a 404 answered before any Durable Object is addressed.
 */
import type { MiddlewareHandler } from "hono";
import { validator } from "hono/validator";
import * as z from "zod";
import { lazySchema, resolveSchema, type SchemaSource } from "../lazy-schema.ts";
import { ApiError } from "./errors.ts";
import type { HonoEnv } from "./hono-env.ts";
import { describeZodError, elicitationIdParam, mcpServerNameParam, sessionIdParam, toolCallIdParam } from "./schemas.ts";

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

export function checkSessionId(raw: string | undefined): string {
  const parsed = sessionIdParam().safeParse(raw);
  // An id that was never issued names no session: answer as for an unknown one.
  if (!parsed.success) throw new ApiError(404, "not_found", "Session not found");
  return parsed.data;
}

/** `:id` of the session routes. */
export const sessionParam = validator("param", (params: Record<string, string>) => ({ id: checkSessionId(params.id) }));

/** `:id` and `:toolCallId` of the approval route. */
export const toolCallParams = validator("param", (params: Record<string, string>) => ({
  id: checkSessionId(params.id),
  toolCallId: parseWith(toolCallIdParam(), params.toolCallId, "tool call id"),
}));

/** `:id` and `:name` of the session's MCP server routes. */
export const mcpServerParams = validator("param", (params: Record<string, string>) => ({
  id: checkSessionId(params.id),
  name: parseWith(resolveSchema(mcpServerNameParam), params.name, "MCP server name"),
}));

export const elicitationParams = validator("param", (params: Record<string, string>) => ({
  id: checkSessionId(params.id),
  elicitationId: parseWith(elicitationIdParam(), params.elicitationId, "elicitation id"),
}));

/** The query, checked by `source`'s schema. */
export const queryOf = <S extends z.ZodType>(source: SchemaSource<S>) =>
  validator("query", (value) => parseWith(resolveSchema(source), value, "query"));
