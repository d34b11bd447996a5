/**
 * Stands in for `ajv-formats` in the Worker bundle (the `alias` of scripts/build-worker.ts); see ./ajv.ts
 * for why.
 */
export default function addFormatsNotBundled(): never {
  throw new Error("ajv-formats is not bundled (Workers forbid eval)");
}
