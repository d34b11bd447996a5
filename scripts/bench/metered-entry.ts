/**
 * This Worker with the bill's units counted (sql-meter.ts), for the cost measure only: the bench starts
 * `wrangler dev` on this file instead of src/index.ts, so the deployed Worker carries no meter. The same
 * app, the same Durable Object classes; AgentSession gets a metered ctx and the app metered stubs.
 * `GET /__bench/meter[?reset]` answers the counters (module state of the one workerd isolate).
 */
import app, { AgentSession as Base } from "../../src/index.ts";
import type { AppEnv } from "../../src/env.ts";
import { countRequest, meterNamespace, meterState, readMeter } from "./sql-meter.ts";

export class AgentSession extends Base {
  constructor(ctx: DurableObjectState, env: AppEnv) {
    super(meterState(ctx), env);
  }

  override alarm(): Promise<void> {
    countRequest("object");
    return super.alarm();
  }
}

// Every other class the Worker exports, as it exports them (a class defined here, AgentSession, takes precedence).
export * from "../../src/index.ts";

export default {
  fetch(request: Request, env: AppEnv, ctx: ExecutionContext): Response | Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/__bench/meter") return Response.json(readMeter(url.searchParams.has("reset")));
    countRequest("worker");
    return app.fetch(request, { ...env, AGENT_SESSION: meterNamespace(env.AGENT_SESSION) }, ctx);
  },
} satisfies ExportedHandler<AppEnv>;
