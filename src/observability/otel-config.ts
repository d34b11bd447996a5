/**
 * Where traces go, read from OTEL_EXPORTER_OTLP_ENDPOINT (a base URL: traces are posted to its
 * `/v1/traces`, as the OTLP exporter spec says) and OTEL_EXPORTER_OTLP_HEADERS (a secret:
 * `key=value,key2=value2`, values URL-encoded). A malformed setting names the variable and the entry's
 * position, never its text (header values are credentials). Unset endpoint: tracing is off.
 */
import { readSetting } from "../config.ts";

export type OtelExport = { tracesUrl: string; headers: Record<string, string> };

export type OtelConfigResult = { ok: true; value: OtelExport | undefined } | { ok: false; message: string };

export function readOtelConfig(env: { OTEL_EXPORTER_OTLP_ENDPOINT?: string; OTEL_EXPORTER_OTLP_HEADERS?: string }): OtelConfigResult {
  const endpoint = readSetting(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  if (!endpoint) return { ok: true, value: undefined };
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return { ok: false, message: "OTEL_EXPORTER_OTLP_ENDPOINT is not a URL" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return { ok: false, message: "OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL" };
  const base = url.href.replace(/\/+$/, "");
  const headers: Record<string, string> = {};
  const raw = readSetting(env, "OTEL_EXPORTER_OTLP_HEADERS");
  if (raw) {
    for (const [i, entry] of raw.split(",").entries()) {
      const at = entry.indexOf("=");
      const key = at > 0 ? entry.slice(0, at).trim() : "";
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key))
        return { ok: false, message: `OTEL_EXPORTER_OTLP_HEADERS entry ${i + 1} is not key=value` };
      try {
        headers[key] = decodeURIComponent(entry.slice(at + 1).trim());
      } catch {
        return { ok: false, message: `OTEL_EXPORTER_OTLP_HEADERS entry ${i + 1} (${key}) has a malformed %-escape` };
      }
    }
  }
  return { ok: true, value: { tracesUrl: `${base}/v1/traces`, headers } };
}
