/**
 * zod schemas for every request body, path parameter and query the API accepts. Strict objects: an
 * unknown field is a 400 naming it, so client typos do not pass silently. Each is built on its first
 * use (src/lazy-schema.ts): built at load, they were most of ~8.6 ms of every new isolate's start-up CPU.
 */
import * as z from "zod";
import { TOOL_NAME_PATTERN } from "../core/index.ts";
import { MAX_PAGE_LIMIT } from "../session/storage/message-store.ts";
import { MAX_RESPONSE_WAIT_MS } from "../session/run/output-waiters.ts";
import { MCP_SERVER_NAME_PATTERN } from "../mcp/client/servers-config.ts";
import { lazySchema } from "../lazy-schema.ts";

export const MAX_BODY_BYTES = 1_000_000;
const MAX_TEXT_CHARS = 200_000;

const toolName = () => z.string().regex(TOOL_NAME_PATTERN, "must be a tool name (letters, digits, underscores)");

export const createSessionBody = lazySchema(() =>
  z.strictObject({
    systemPrompt: z.string().max(50_000).optional(),
    toolExecution: z.enum(["sequential", "parallel"]).optional(),
    tools: z.array(toolName()).max(256).optional(),
    requireApproval: z
      .array(z.union([toolName(), z.literal("*")]))
      .max(256)
      .optional(),
    /** Names of MCP_SERVERS entries whose tools the session uses; absent means all of them. */
    mcpServers: z.array(z.string().max(64)).max(32).optional(),
    /** One of the MODELS allowlist; checked by the router, which knows the configuration. */
    model: z.string().min(1).max(200).optional(),
    /** The user the session belongs to: the operator's to name (API_TOKEN); a user's token names its own. */
    userId: z.string().min(1).max(255).optional(),
  }),
);

const textBlock = () => z.strictObject({ type: z.literal("text"), text: z.string().max(MAX_TEXT_CHARS) });
const imageBlock = () =>
  z.strictObject({
    type: z.literal("image"),
    data: z
      .string()
      .max(MAX_BODY_BYTES)
      .regex(/^[A-Za-z0-9+/]*={0,2}$/, "must be base64"),
    mimeType: z.string().regex(/^image\/[a-z0-9.+-]+$/i, "must be an image MIME type"),
  });

export const messageBody = lazySchema(() =>
  z.strictObject({
    content: z.union([
      z.string().min(1, "must not be empty").max(MAX_TEXT_CHARS),
      z
        .array(z.discriminatedUnion("type", [textBlock(), imageBlock()]))
        .min(1, "must have at least one block")
        .max(64),
    ]),
  }),
);

export const settingsBody = lazySchema(() =>
  z
    .strictObject({
      requireApproval: z
        .array(z.union([toolName(), z.literal("*")]))
        .max(256)
        .optional(),
    })
    .refine((body) => body.requireApproval !== undefined, "name at least one setting to change (requireApproval)"),
);

/** What `useChat`'s DefaultChatTransport posts: the chat's UI messages (only the last is read) and extras. */
export const chatBody = lazySchema(() => {
  const uiPart = z.looseObject({ type: z.string().max(200) });
  return z.looseObject({
    messages: z
      .array(z.looseObject({ role: z.enum(["system", "user", "assistant"]), parts: z.array(uiPart).max(10_000) }))
      .min(1, "must not be empty"),
  });
});

/** POST /v1/sessions/:id/mcp-servers: a server the session brings (the session checks MCP_ALLOWED_URLS). */
export const addMcpServerBody = lazySchema(() =>
  z.strictObject({
    name: z.string().regex(MCP_SERVER_NAME_PATTERN, "must start with a letter and use at most 32 letters, digits, _ or -"),
    url: z.string().max(2_048),
    headers: z.record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/, "must be a header name"), z.string().max(4_096)).optional(),
    // A client the user registered with the server's authorization server (servers without registration).
    clientId: z.string().min(1).max(512).optional(),
    clientSecret: z.string().min(1).max(2_048).optional(),
  }),
);

export const mcpServerNameParam = lazySchema(() => z.string().regex(MCP_SERVER_NAME_PATTERN, "must be an MCP server name"));

/** PUT …/token-budget (the operator): the session's token budget from now on, replacing SESSION_TOKEN_BUDGET. */
export const tokenBudgetBody = lazySchema(() => z.strictObject({ tokenBudget: z.number().int().positive().max(Number.MAX_SAFE_INTEGER) }));

export const approvalBody = lazySchema(() =>
  z.strictObject({
    approve: z.boolean(),
    reason: z.string().max(2_000).optional(),
  }),
);

export const elicitationAnswerBody = lazySchema(() =>
  z.strictObject({
    action: z.enum(["accept", "decline", "cancel"]),
    /** With accept: the form's values; checked against the server's requested schema by the session. */
    content: z.record(z.string(), z.unknown()).optional(),
  }),
);

export const elicitationIdParam = lazySchema(() => z.string().regex(/^elc_[0-9a-f-]{36}$/, "is not a valid elicitation id"));

export const toolCallIdParam = lazySchema(() =>
  z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\x21-\x7e]+$/, "is not a valid tool call id"),
);

export const waitQuery = lazySchema(() =>
  z.object({
    waitMs: z.coerce.number().int().min(0).max(MAX_RESPONSE_WAIT_MS).optional(),
  }),
);

/** Messages a page holds when the client names no limit. */
export const DEFAULT_PAGE_LIMIT = 50;

/** GET /v1/sessions/:id/messages: `before` is a cursor from an earlier page (or the snapshot). */
export const messagePageQuery = lazySchema(() =>
  z.object({
    before: z
      .string()
      .regex(/^[1-9]\d{0,14}$/, "must be a cursor from an earlier page (a positive integer)")
      .transform(Number)
      .optional(),
    limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(DEFAULT_PAGE_LIMIT),
  }),
);

/** One line per problem, each naming its field, e.g. `content: must not be empty`. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join(".");
      if (issue.code === "unrecognized_keys") return `unknown field(s): ${issue.keys.join(", ")}`;
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}
