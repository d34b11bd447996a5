/**
 * Stands in for `ajv` in the Worker bundle (the `alias` of scripts/build-worker.ts). The MCP SDK imports
 * ajv as its default validator, but ajv compiles schemas with `new Function`, which Workers forbid; every
 * SDK Client/Server here gets the @cfworker/json-schema validator instead, so this is never constructed.
 * Leaving ajv out saves about 38 KiB gzip.
 */
export default class AjvNotBundled {
  constructor() {
    throw new Error("ajv is not bundled (Workers forbid eval): pass the MCP SDK a CfWorkerJsonSchemaValidator");
  }
}
