/**
 * Which browser origins may call the API (docs/security.md "Browsers: CORS and simple requests"). By default only the Worker's own
 * origin (the page it serves), so a deployed agent is not callable from other sites' scripts. CORS_ORIGINS,
 * a comma-separated list, replaces that default; "*" in it allows every origin, explicitly.
 * Used by the router's CORS middleware.
 */
export type AllowedOrigins = "*" | readonly string[];

/** CORS_ORIGINS as read (src/config.ts): undefined when it lists none. */
export function parseCorsOrigins(origins: readonly string[]): AllowedOrigins | undefined {
  if (origins.length === 0) return undefined;
  return origins.includes("*") ? "*" : origins;
}

/** The origin to echo in Access-Control-Allow-Origin, or null to send none. */
export function allowedOrigin(origin: string, requestUrl: string, configured: readonly string[]): string | null {
  const allowed = parseCorsOrigins(configured) ?? [new URL(requestUrl).origin];
  if (allowed === "*") return "*";
  return allowed.includes(origin) ? origin : null;
}
