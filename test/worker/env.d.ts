/// <reference types="@cloudflare/vitest-plugin/types" />
// `cloudflare:test` exposes the test Worker's bindings as Cloudflare.Env: the app's own environment, plus
// the bindings only the test Worker has (wrangler.test.toml).
declare namespace Cloudflare {
  interface Env extends Omit<import("../../src/env.ts").AppEnv, never> {
    /** A 3-per-minute limiter the rate-limit tests swap in for the app's own. */
    TIGHT_RATE_LIMIT: RateLimit;
  }
}
