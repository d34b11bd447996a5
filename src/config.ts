/**
 * The Worker's settings: every var and secret it reads, where each is set, how its text is parsed and its
 * default. Code reads a setting where it uses it, `readSetting(env, "NAME")`, which parses that one string
 * and builds nothing else, so a read on a run's path costs one small parse and there is no cache to
 * invalidate when a test passes another env.
 * Invariants: a reader never throws; unset, blank or malformed text yields the default (a setting is a
 * knob, not input), and a list drops blank items. Text with a structure of its own (MODEL_PROVIDER's
 * names, MCP_SERVERS' JSON, the OTLP endpoint and headers) is read here as text and checked by the module
 * that uses it, which names the problem instead of falling back.
 * Each setting has one row in the README's configuration table and a line in wrangler.toml's [vars]
 * (commented out where the default applies) or in .dev.vars.example; test/config.node.test.ts checks both.
 */
import { DEFAULT_MAX_CONTEXT_TOKENS } from "./core/context-budget.ts";
import { DEFAULT_COMPACT_AT } from "./core/context-compaction.ts";
import { DEFAULT_MAX_RETRY_DELAY_MS } from "./llm/retry.ts";

/** Where a setting is given. */
export type SettingKind =
  /** A plain value: a line in wrangler.toml's [vars], which `.dev.vars` may override locally. */
  | "var"
  /** A credential, or a value that differs between `npm start` and deployed: `.dev.vars` locally, `wrangler secret put` deployed. */
  | "secret"
  /** Either: MCP_SERVERS is a secret when its headers carry tokens. */
  | "var or secret"
  /** Passed only by `npm start` and `npm run dev` (`--var`), never by a file. */
  | "local";

export type Setting<T> = {
  kind: SettingKind;
  default: T;
  /** The value of `text` (as given, never undefined), or undefined when it is blank or malformed. */
  parse: (text: string) => T | undefined;
};

const setting = <T>(kind: SettingKind, fallback: T, parse: (text: string) => T | undefined): Setting<T> => ({
  kind,
  default: fallback,
  parse,
});

/** Trimmed text; blank is unset. */
const text = (kind: SettingKind, fallback = "") => setting(kind, fallback, (raw) => raw.trim() || undefined);

/** Text exactly as given (a bearer secret, JSON whose error positions name the var's own text); blank is unset. */
const verbatim = (kind: SettingKind) => setting(kind, "", (raw) => (raw.trim() ? raw : undefined));

/** A comma-separated list, items trimmed, blanks dropped. */
const list = (kind: SettingKind) =>
  setting<readonly string[]>(kind, Object.freeze([]), (raw) =>
    raw
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== ""),
  );

/** `"true"` or `"false"` in any case, surrounding blanks ignored; anything else is the default. */
const flag = (kind: SettingKind, fallback: boolean) =>
  setting(kind, fallback, (raw) => {
    const word = raw.trim().toLowerCase();
    return word === "true" ? true : word === "false" ? false : undefined;
  });

/** On only for exactly `"true"`: for settings that open something, nothing looser than the value meant. */
const exactlyTrue = (kind: SettingKind) => setting(kind, false, (raw) => raw === "true" || undefined);

/** A positive whole number (counts, milliseconds, tokens, bytes); "1e3", "1.5" and "12ms" are not. */
const positiveInteger = (fallback: number) =>
  setting("var", fallback, (raw) => {
    const digits = raw.trim();
    return /^\d{1,15}$/.test(digits) && Number(digits) > 0 ? Number(digits) : undefined;
  });

/** A positive decimal number, fractions allowed ("0.5" days); "1e3" is not. */
const positiveNumber = (fallback: number) =>
  setting("var", fallback, (raw) => {
    const decimal = raw.trim();
    return /^\d+(\.\d+)?$/.test(decimal) && Number(decimal) > 0 ? Number(decimal) : undefined;
  });

/** An instant as epoch milliseconds, from ISO 8601 text (a date alone is 00:00 UTC); unset is undefined. */
const instant = () =>
  setting<number | undefined>("var", undefined, (raw) => {
    const ms = raw.trim() ? Date.parse(raw.trim()) : Number.NaN;
    return Number.isFinite(ms) ? ms : undefined;
  });

/** A decimal number that may be zero (a delay). */
const nonNegativeNumber = (fallback: number) =>
  setting("var", fallback, (raw) => {
    const decimal = raw.trim();
    return /^\d+(\.\d+)?$/.test(decimal) ? Number(decimal) : undefined;
  });

/** A whole number of at most three digits, zero allowed (a nesting depth). */
/** A token count: a positive whole number; malformed: unset (no limit). */
const tokenCount = (raw: string): number | undefined => {
  const digits = raw.trim();
  return /^\d{1,15}$/.test(digits) && Number(digits) > 0 ? Number(digits) : undefined;
};

const smallWholeNumber = (fallback: number) =>
  setting("var", fallback, (raw) => {
    const digits = raw.trim();
    return /^\d{1,3}$/.test(digits) ? Number(digits) : undefined;
  });

/**
 * Every setting, in the README table's order. The defaults are the behaviour without the setting;
 * wrangler.toml may set a var to another value for a deployment.
 */
export const SETTINGS = {
  // Models (src/llm/select-model.ts).
  /** "openai", "workers-ai" or "offline"; empty: "openai" with OPENAI_API_KEY, else "offline". Checked by select-model. */
  MODEL_PROVIDER: text("secret"),
  OPENAI_API_KEY: text("secret"),
  /** Empty: the adapter's own, OpenAI's API. */
  OPENAI_BASE_URL: text("var"),
  OPENAI_MODEL: text("var", "gpt-4o-mini"),
  /** Function calling and streaming, on Workers AI's fast tier (README "Models"). */
  WORKERS_AI_MODEL: text("var", "@cf/meta/llama-3.3-70b-instruct-fp8-fast"),
  /** Models a session may choose at creation besides the configured one. */
  MODELS: list("var"),
  /** Off only for "false": some endpoints cannot stream. */
  LLM_STREAM: flag("var", true),
  /** The adapters' own cap on one retry wait. */
  MAX_RETRY_DELAY_MS: nonNegativeNumber(DEFAULT_MAX_RETRY_DELAY_MS),
  /** Models tried in order when the session's model fails after its retries (src/llm/model-fallback.ts); `workers-ai:<model>` for Workers AI. */
  MODEL_FALLBACKS: list("var"),

  // Access (src/http/access-policy.ts, operator-access.ts, cors-policy.ts).
  /** The Worker is local (open while API_TOKEN is unset, no rate limits) only under `npm start`/`npm run dev`. */
  LOCAL_DEV: exactlyTrue("local"),
  API_TOKEN: text("secret"),
  /** Signs session ids; its length, and the one generated locally when unset, are src/signing/signing-secret.ts's. */
  SIGNING_SECRET: text("secret"),
  /** Until this instant unsigned session ids of the older shape are accepted (src/signing/session-ids.ts). */
  LEGACY_SESSION_IDS_UNTIL: instant(),
  ALLOW_ANONYMOUS_SESSIONS: flag("var", false),
  /** Browser origins allowed by CORS; "*" among them allows all; empty: the Worker's own origin. */
  CORS_ORIGINS: list("var"),

  // Written tools (src/tools/written/).
  WRITE_TOOL_ENABLED: exactlyTrue("var"),
  REDEPLOY_HOOK_URL: text("var"),
  /** Sent as the hook's bearer token as given. */
  REDEPLOY_HOOK_SECRET: verbatim("secret"),

  // Code mode (src/code-mode/): the bundled tool runCode, with a LOADER binding.
  CODE_MODE: exactlyTrue("var"),

  // Sessions.
  /** How long a tool call waits for a human's approval (and an MCP server's question for its answer): 10 minutes. */
  APPROVAL_TIMEOUT_MS: positiveInteger(600_000),
  /** getWeather's upstreams (tools/getWeather.ts), Open-Meteo's. */
  WEATHER_API_BASE_URL: text("var", "https://api.open-meteo.com"),
  GEOCODING_API_BASE_URL: text("var", "https://geocoding-api.open-meteo.com"),
  /** Request budget of the default context policy in estimated tokens: the core's own. */
  MAX_CONTEXT_TOKENS: positiveInteger(DEFAULT_MAX_CONTEXT_TOKENS),
  /** The share of the budget at which a session compacts (docs/compaction.md): above 0, at most 1. */
  COMPACT_AT: setting("var", DEFAULT_COMPACT_AT, (raw) => {
    const decimal = raw.trim();
    const value = Number(decimal);
    return /^\d+(\.\d+)?$/.test(decimal) && value > 0 && value <= 1 ? value : undefined;
  }),
  /**
   * Models whose own window is smaller than the budget: `model=tokens` pairs, comma-separated (a malformed
   * pair states nothing). The session's model's and its fallbacks' count (src/session/run/memory-window.ts).
   */
  MODEL_CONTEXT_WINDOWS: setting<Readonly<Record<string, number>>>("var", Object.freeze({}), (raw) => {
    const windows: Record<string, number> = {};
    for (const item of raw.split(",")) {
      const at = item.lastIndexOf("=");
      const model = item.slice(0, at).trim();
      const tokens = item.slice(at + 1).trim();
      if (at > 0 && model && /^\d{1,15}$/.test(tokens) && Number(tokens) > 0) windows[model] = Number(tokens);
    }
    return Object.keys(windows).length > 0 ? Object.freeze(windows) : undefined;
  }),
  /** JSON list of the deployer's MCP servers, checked by src/mcp/servers-config.ts. */
  MCP_SERVERS: verbatim("var or secret"),
  /** URL prefixes sessions may attach as their own MCP servers (src/mcp/allowed-urls.ts). */
  MCP_ALLOWED_URLS: list("var"),
  /** Days without activity after which a session is erased. */
  SESSION_IDLE_TTL_DAYS: positiveNumber(30),
  /** Past it new input is refused (413), instead of growing for the session's whole idle lifetime. */
  SESSION_MAX_BYTES: positiveInteger(200_000_000),
  /** How deep sub-agents nest; 0: none at all. A session at this depth is offered no sub-agents. */
  MAX_SUBAGENT_DEPTH: smallWholeNumber(2),
  /** Each schedule is a row and a wake-up, so they are few. */
  MAX_SCHEDULES: positiveInteger(100),
  /** The shortest repeat of an `everyMs` or `cron` schedule: a minute, as cron. */
  SCHEDULE_MIN_INTERVAL_MS: positiveInteger(60_000),
  /** Tokens (input plus output, as reported) one session may use (src/session/run/token-budget.ts); unset: no limit. */
  SESSION_TOKEN_BUDGET: setting<number | undefined>("var", undefined, tokenCount),
  /** Tokens one user's sessions may use per UTC day, counted by the user's UserStore; unset: no limit. */
  USER_DAILY_TOKEN_BUDGET: setting<number | undefined>("var", undefined, tokenCount),

  // Traces (src/observability/otel-config.ts checks both).
  OTEL_EXPORTER_OTLP_ENDPOINT: text("var"),
  OTEL_EXPORTER_OTLP_HEADERS: text("secret"),

  // Users (src/users/): sign-in with the app's own JWTs, all three or none; a user's memory.
  /** The identity provider's JWKS (src/users/user-token.ts checks it is http(s)). */
  AUTH_JWKS_URL: text("var"),
  /** The tokens' `iss`, exactly. */
  AUTH_ISSUER: text("var"),
  /** A value the tokens' `aud` must hold. */
  AUTH_AUDIENCE: text("var"),
  /** Memories one user may keep; one more is an error result naming the limit. */
  MAX_MEMORIES: positiveInteger(1000),
} as const;

export type SettingName = keyof typeof SETTINGS;
export type SettingValue<N extends SettingName> = (typeof SETTINGS)[N]["default"];

/** `name` as `env` gives it: parsed, or its default when unset, blank or malformed. */
export function readSetting<N extends SettingName>(env: { readonly [K in N]?: unknown }, name: N): SettingValue<N> {
  const { parse, default: fallback } = SETTINGS[name] as Setting<SettingValue<N>>;
  const raw = env[name];
  const value = typeof raw === "string" ? parse(raw) : undefined;
  return value === undefined ? fallback : value;
}

const DAY_MS = 86_400_000;

/** SESSION_IDLE_TTL_DAYS in milliseconds. */
export const sessionIdleTtlMs = (env: { SESSION_IDLE_TTL_DAYS?: string | undefined }): number =>
  readSetting(env, "SESSION_IDLE_TTL_DAYS") * DAY_MS;

/** SESSION_MAX_BYTES: the run driver's budget check. */
export const readSessionMaxBytes = (env: { SESSION_MAX_BYTES?: string | undefined }): number => readSetting(env, "SESSION_MAX_BYTES");
