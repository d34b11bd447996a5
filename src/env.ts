/**
 * The Worker's environment: bindings from wrangler.toml (generated `Env`) plus the optional secrets and
 * vars of DESIGN.md's configuration table, which `wrangler types` cannot know about.
 */
import type { AgentSession } from "./session/agent-session.ts";

export type AppEnv = Omit<Env, "AGENT_SESSION" | "LOADER"> & {
  AGENT_SESSION: DurableObjectNamespace<AgentSession>;
  /** Worker Loader for written tools' sandboxed drafts; without it a written tool waits for the redeploy. */
  LOADER?: WorkerLoader;
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  OPENAI_MODEL?: string;
  MAX_RETRY_DELAY_MS?: string;
  OPENAI_STREAM?: string;
  API_TOKEN?: string;
  WRITE_TOOL_ENABLED?: string;
  REDEPLOY_HOOK_URL?: string;
  REDEPLOY_HOOK_SECRET?: string;
  CORS_ORIGINS?: string;
  APPROVAL_TIMEOUT_MS?: string;
  MAX_CONTEXT_TOKENS?: string;
  SESSION_IDLE_TTL_DAYS?: string;
  WEATHER_API_BASE_URL?: string;
  GEOCODING_API_BASE_URL?: string;
  /** JSON `[{name, url, headers?, requireApproval?}]`: remote MCP servers whose tools sessions may use. */
  MCP_SERVERS?: string;
};
