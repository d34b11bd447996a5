/**
 * The client's one error type: every non-2xx answer of the API (and an answer the client cannot read)
 * becomes an ApiClientError carrying the HTTP status and the server's `{error:{code,message}}`.
 * Called by the request helper and the event stream; a caller branches on `status`/`code`, never on text.
 */
import { isPlainObject } from "../core/plain-object.ts";

export class ApiClientError extends Error {
  override readonly name = "ApiClientError";

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** From a `Retry-After` header (429), in seconds. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** Reads an error answer into an ApiClientError, falling back to the status text when the body is not ours. */
export async function errorFromResponse(response: Response): Promise<ApiClientError> {
  const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
  let text = "";
  try {
    text = await response.text();
  } catch {
    // The body broke off; the status alone still tells the caller what happened.
  }
  const body = parseJson(text);
  const error = isPlainObject(body) && isPlainObject(body.error) ? body.error : undefined;
  const code = typeof error?.code === "string" ? error.code : codeForStatus(response.status);
  const message =
    typeof error?.message === "string" ? error.message : `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
  return new ApiClientError(response.status, code, message, retryAfter);
}

/** Statuses after which asking again cannot help (credentials, unknown or closed session, bad request). */
export function isPermanentStatus(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

function codeForStatus(status: number): string {
  if (status === 401) return "unauthorized";
  if (status === 403) return "forbidden";
  if (status === 404) return "not_found";
  if (status === 410) return "gone";
  if (status === 429) return "queue_full";
  return status >= 500 ? "internal" : "http_error";
}

function parseRetryAfter(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
