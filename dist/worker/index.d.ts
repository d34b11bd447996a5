// The main module wrangler.toml uploads is dist/worker/index.js, built from src/index.ts by
// scripts/build-worker.ts; `wrangler types` types the Durable Object bindings from it, so its types are these.
export * from "../../src/index.ts";
