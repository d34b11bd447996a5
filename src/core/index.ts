/**
 * The runtime-agnostic core's public surface. Hosts (the Durable Object, Node scripts, tests) import
 * from here; nothing in core imports Cloudflare, Hono or the openai SDK.
 */
export * from "./types.ts";
export * from "./events.ts";
export * from "./tool-store.ts";
export * from "./tool-results.ts";
export * from "./content-text.ts";
export * from "./plain-object.ts";
export * from "./tool-arguments.ts";
export * from "./tool-contract.ts";
export * from "./tool-pipeline.ts";
export * from "./tool-batch.ts";
export * from "./nested-tool-calls.ts";
export * from "./tool-call-extraction.ts";
export * from "./llm-request.ts";
export * from "./format-messages.ts";
export * from "./agent-loop.ts";
export * from "./context-budget.ts";
export * from "./context-compaction.ts";
export * from "./json-safe.ts";
export * from "./run-hook.ts";
export * from "./guardrails.ts";
