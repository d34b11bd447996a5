/// <reference types="@cloudflare/vitest-plugin/types" />
// `cloudflare:test` exposes the test Worker's bindings as Cloudflare.Env: the app's own environment.
declare namespace Cloudflare {
  interface Env extends Omit<import("../../src/env.ts").AppEnv, never> {}
}
