/**
 * The Worker's environment: everything comes from `wrangler types` (worker-configuration.d.ts, regenerated
 * by `npm run generate`): bindings and vars from wrangler.toml, secrets from .dev.vars.example. Secrets
 * may be unset, which the generated type cannot say, so they are made optional here; the knobs below exist
 * only for tests and operators and have no default in wrangler.toml.
 */
type SecretName = "OPENAI_API_KEY" | "API_TOKEN" | "REDEPLOY_HOOK_SECRET" | "OTEL_EXPORTER_OTLP_HEADERS" | "SIGNING_SECRET";

export type AppEnv = Omit<Env, SecretName> &
  Partial<Pick<Env, SecretName>> & {
    /** How long a tool call waits for a human's approval; default in agent-config.ts. */
    APPROVAL_TIMEOUT_MS?: string;
    /** Request budget of the default context policy; default in agent-config.ts. */
    MAX_CONTEXT_TOKENS?: string;
    /** Idle sessions are erased after this many days; default 30. */
    SESSION_IDLE_TTL_DAYS?: string;
    /** Bytes one session may store before new input is refused (413); default in src/env-vars.ts. */
    SESSION_MAX_BYTES?: string;
    /** Schedules one session may hold, and the shortest repeat interval; defaults in src/env-vars.ts. */
    MAX_SCHEDULES?: string;
    SCHEDULE_MIN_INTERVAL_MS?: string;
    /** getWeather's upstreams, pointed at local servers by tests. */
    WEATHER_API_BASE_URL?: string;
    GEOCODING_API_BASE_URL?: string;
    /** Until this instant (ISO 8601), unsigned session ids of the older shape are accepted (src/signing/session-ids.ts). */
    LEGACY_SESSION_IDS_UNTIL?: string;
    /** "true" only under `npm start`/`npm run dev` (`--var LOCAL_DEV:true`): the Worker is local (access-policy.ts). */
    LOCAL_DEV?: string;
    /** JSON `[{name, url, headers?, requireApproval?}]`: remote MCP servers whose tools sessions may use. */
    MCP_SERVERS?: string;
    /** Comma-separated URL prefixes a session may attach as its own MCP servers; unset: none. */
    MCP_ALLOWED_URLS?: string;
    /** How deep sub-agents may nest (src/env-vars.ts); default 2. */
    MAX_SUBAGENT_DEPTH?: string;
    /** An OTLP/HTTP collector's base URL (traces go to its /v1/traces); unset: no traces (docs/observability.md). */
    OTEL_EXPORTER_OTLP_ENDPOINT?: string;
    /** Sign-in (src/users/user-token.ts): the identity provider's JWKS, the tokens' `iss` and `aud`; all three or none. */
    AUTH_JWKS_URL?: string;
    AUTH_ISSUER?: string;
    AUTH_AUDIENCE?: string;
    /** Memories one user may keep (src/env-vars.ts); default 1000. */
    MAX_MEMORIES?: string;
  };
