/**
 * The Worker's environment: everything comes from `wrangler types` (worker-configuration.d.ts, regenerated
 * by `npm run generate`): bindings and vars from wrangler.toml, secrets from .dev.vars.example. Secrets
 * may be unset, which the generated type cannot say, so they are made optional here; so are the settings
 * that have no line in either file (commented out in wrangler.toml, or passed by `npm start`): each setting,
 * its parsing and its default is in src/config.ts.
 */
import type { SettingName } from "./config.ts";

type SecretName = "OPENAI_API_KEY" | "API_TOKEN" | "REDEPLOY_HOOK_SECRET" | "OTEL_EXPORTER_OTLP_HEADERS" | "SIGNING_SECRET";

export type AppEnv = Omit<Env, SecretName> & Partial<Pick<Env, SecretName>> & { [K in Exclude<SettingName, keyof Env>]?: string };
