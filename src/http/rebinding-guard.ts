/**
 * DNS-rebinding protection for an unauthenticated local /mcp (LOCAL_DEV without API_TOKEN): a page on
 * evil.example whose name resolves to 127.0.0.1 reaches the local server with Host and Origin naming
 * evil.example, so a request whose Host, or Origin when sent, is not a loopback name is refused. It only
 * ever refuses: being local is decided by LOCAL_DEV, never by these headers. Called by mcp-routes.ts.
 */
import { ApiError } from "./errors.ts";

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The host part of `host[:port]` or of an origin URL; undefined when it cannot be read. */
function hostnameOf(value: string, isOrigin: boolean): string | undefined {
  try {
    return new URL(isOrigin ? value : `http://${value}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

export function refuseRebinding(request: Request): void {
  const host = request.headers.get("host");
  const origin = request.headers.get("origin");
  const hostOk = host === null || LOOPBACK_NAMES.has(hostnameOf(host, false) ?? "");
  const originOk = origin === null || LOOPBACK_NAMES.has(hostnameOf(origin, true) ?? "");
  if (!hostOk || !originOk) {
    throw new ApiError(
      403,
      "forbidden",
      "A local /mcp without API_TOKEN answers only requests addressed to localhost (DNS-rebinding protection)",
    );
  }
}
