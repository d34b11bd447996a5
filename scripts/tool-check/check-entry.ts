/**
 * Runs inside workerd, never in Node: the Worker the tool checks load (scripts/tool-check/workerd-load.ts).
 * Each request names one bundled tool module; it is imported here (so a throw at load is caught per tool)
 * and checked against the tool file contract, then for fields no tool has. execute is never called. The
 * isolate has no bindings and no network, so whatever a module does while loading stays inside it.
 */
import { checkToolModule } from "../../src/core/index.ts";
import { describeUnknownFields, PLAIN_TOOL_FIELDS } from "../../src/tools/unknown-fields.ts";

type CheckRequest = { module: string; name: string };

const describe = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Fields of the tool that no AgentTool has (`parameters` for `inputSchema`, a typo…), listed first: they
 * usually explain the contract's complaint (inputSchema missing). A getTool() that throws is the
 * contract check's to report.
 */
function unknownFields(mod: unknown): string[] {
  try {
    const tool: unknown = (mod as { getTool: () => unknown }).getTool();
    return tool && typeof tool === "object" && !Array.isArray(tool) ? describeUnknownFields(tool, PLAIN_TOOL_FIELDS, "plain") : [];
  } catch {
    return [];
  }
}

export default {
  async fetch(request: Request): Promise<Response> {
    const { module, name } = (await request.json()) as CheckRequest;
    let mod: unknown;
    try {
      mod = await import(module);
    } catch (err) {
      return Response.json({ problems: [`failed to load: ${describe(err)}`] });
    }
    const problems = checkToolModule(mod, name);
    const getTool = (mod as { getTool?: unknown } | null)?.getTool;
    return Response.json({ problems: typeof getTool === "function" ? [...unknownFields(mod), ...problems] : problems });
  },
};
