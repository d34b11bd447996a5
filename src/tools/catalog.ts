/**
 * The bundled tool catalog: the build-time generated registry, plus modules a host adds before serving
 * (the test Worker adds its fixture tools this way). Bundled tools are static imports: nothing is evaluated.
 * A session loads sessionRegistry(env), which leaves out tools whose setting is off (writeTool).
 */
import { readSetting } from "../config.ts";
import { toolRegistry } from "./registry.generated.ts";
import type { ToolRegistry } from "../core/index.ts";
import type { ToolFileRegistry } from "./define-tool.ts";

const extraModules: Record<string, { getTool: ToolRegistry[string]["getTool"] }> = {};

export function addBundledToolModules(modules: ToolRegistry): void {
  Object.assign(extraModules, modules);
}

/**
 * Registry entries in sorted order (generated first, extras after). The generated registry is typed for
 * tool authors (ToolFileRegistry: a result may be a string or `{content}`); the core's pipeline turns
 * every return into a full AgentToolResult (normalizeToolResult), so it takes them as AgentTools.
 */
export function bundledRegistry(): ToolRegistry {
  const generated: ToolFileRegistry = toolRegistry;
  return { ...(generated as unknown as ToolRegistry), ...extraModules };
}

/**
 * Bundled tools that exist only when a setting turns them on: while it is off, sessions neither offer
 * them to the model nor list them (their own execute refuses too, in case one is reached another way).
 */
const ENABLED_BY: Readonly<Record<string, "WRITE_TOOL_ENABLED">> = { writeTool: "WRITE_TOOL_ENABLED" };

/** The registry a session loads under `env`: bundledRegistry() without the tools `env` leaves off. */
export function sessionRegistry(env: Readonly<Record<string, unknown>>): ToolRegistry {
  return Object.fromEntries(
    Object.entries(bundledRegistry()).filter(([name]) => ENABLED_BY[name] === undefined || readSetting(env, ENABLED_BY[name])),
  );
}

export function bundledToolNames(): string[] {
  // runCode is built by the session loader (src/code-mode/run-code-tool.ts), not a file of tools/.
  return [...Object.keys(bundledRegistry()), "listTools", "runCode"];
}
