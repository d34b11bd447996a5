/**
 * A zod schema built on its first use and kept. Building zod objects is CPU every new isolate would pay at
 * start-up for every route, most of which it never serves: built at load, the API's, MCP_SERVERS' and the
 * tools' schemas cost ~8.6 of ~18 ms of start-up CPU. Used by src/http/schemas.ts (the validation
 * middleware takes either form, so a route file may still pass a schema it built), servers-config, spec.
 */
import type * as z from "zod";

/** A schema, or a function that returns the same schema on every call. */
export type SchemaSource<S extends z.ZodType> = S | (() => S);

export function lazySchema<S extends z.ZodType>(build: () => S): () => S {
  let schema: S | undefined;
  return () => (schema ??= build());
}

export function resolveSchema<S extends z.ZodType>(source: SchemaSource<S>): S {
  return typeof source === "function" ? (source as () => S)() : source;
}
