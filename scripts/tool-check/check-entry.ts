/**
 * Runs inside workerd, never in Node: the Worker the tool checks load (scripts/tool-check/workerd-load.ts).
 * Each request names one bundled tool module; it is imported here (so a throw at load is caught per tool)
 * and checked against the tool file contract. execute is never called. The isolate has no bindings and
 * no network, so whatever a module does while loading stays inside it.
 */
import { checkToolModule } from "../../src/core/tool-contract.ts";

type CheckRequest = { module: string; name: string };

const describe = (err: unknown) => (err instanceof Error ? err.message : String(err));

export default {
  async fetch(request: Request): Promise<Response> {
    const { module, name } = (await request.json()) as CheckRequest;
    let mod: unknown;
    try {
      mod = await import(module);
    } catch (err) {
      return Response.json({ problems: [`failed to load: ${describe(err)}`] });
    }
    return Response.json({ problems: checkToolModule(mod, name) });
  },
};
