/**
 * The deployer's MCP servers: the `MCP_SERVERS` var (JSON `[{name, url, headers?, requireApproval?}]`)
 * parsed and checked with zod, and a session's choice among them. Called by the HTTP layer at session
 * creation (a bad value is a 500 naming the problem, never a crash) and by the session when it loads.
 * Errors name the position and the field, never the text: the var holds secrets (headers).
 * Invariant: server names are unique and short identifiers, so `<server>_<tool>` stays a valid tool name.
 * The schemas are built on the first non-blank var (src/lazy-schema.ts): start-up CPU.
 */
import * as z from "zod";
import { readSetting } from "../../config.ts";
import { locateJsonError } from "../../json-error-position.ts";
import { lazySchema } from "../../lazy-schema.ts";

export const MCP_SERVER_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;

const serverConfig = () =>
  z.strictObject({
    name: z.string().regex(MCP_SERVER_NAME_PATTERN, "must start with a letter and use at most 32 letters, digits, _ or -"),
    url: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
    headers: z.record(z.string(), z.string()).optional(),
    /** true: every call of this server's tools waits for a human; a list: only those (MCP) tool names. */
    requireApproval: z.union([z.boolean(), z.array(z.string())]).optional(),
    /** A call to this server's tools running longer becomes an error result (and an MCP cancellation). */
    timeoutMs: z.number().int().positive().optional(),
    /** A client registered with the server's authorization server beforehand (else: dynamic registration). */
    clientId: z.string().min(1).max(512).optional(),
    clientSecret: z.string().min(1).max(2048).optional(),
  });

const serversConfig = lazySchema(() =>
  z
    .array(serverConfig())
    .max(32)
    .superRefine((servers, ctx) => {
      const seen = new Set<string>();
      for (const [i, s] of servers.entries()) {
        if (seen.has(s.name)) ctx.addIssue({ code: "custom", path: [i, "name"], message: `duplicate server name "${s.name}"` });
        seen.add(s.name);
      }
    }),
);

export type McpServerConfig = z.infer<ReturnType<typeof serverConfig>>;

export type McpServersResult = { ok: true; servers: McpServerConfig[] } | { ok: false; message: string };

/** Parses the raw var; unset or blank means no servers. */
export function parseMcpServers(raw: string | undefined): McpServersResult {
  if (raw === undefined || raw.trim() === "") return { ok: true, servers: [] };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    // V8's message quotes the text around the error, which may be a header's token: name the spot only.
    const at = locateJsonError(raw);
    return {
      ok: false,
      message: `MCP_SERVERS is not valid JSON: the error is at position ${at.offset} (line ${at.line}, column ${at.column})`,
    };
  }
  const parsed = serversConfig().safeParse(json);
  if (parsed.success) return { ok: true, servers: parsed.data };
  const problems = parsed.error.issues.map(
    (i) => `${i.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("")}: ${i.message}`,
  );
  return { ok: false, message: `MCP_SERVERS is invalid: ${problems.join("; ")}` };
}

/** The Worker's MCP_SERVERS, parsed. */
export const readMcpServers = (env: { MCP_SERVERS?: string | undefined }): McpServersResult =>
  parseMcpServers(readSetting(env, "MCP_SERVERS"));

/** The servers a session asked for (all when `names` is absent), or the unknown names it asked for. */
export function selectMcpServers(
  servers: readonly McpServerConfig[],
  names: readonly string[] | undefined,
): { ok: true; servers: McpServerConfig[] } | { ok: false; unknown: string[] } {
  if (!names) return { ok: true, servers: [...servers] };
  const unknown = names.filter((n) => !servers.some((s) => s.name === n));
  if (unknown.length > 0) return { ok: false, unknown: [...new Set(unknown)] };
  return { ok: true, servers: servers.filter((s) => names.includes(s.name)) };
}
