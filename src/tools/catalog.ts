/**
 * The bundled tool catalog: the build-time generated registry, plus modules a host adds before serving
 * (the test Worker adds its fixture tools this way). Bundled tools are static imports: nothing is evaluated.
 */
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

export function bundledToolNames(): string[] {
  return [...Object.keys(bundledRegistry()), "listTools"];
}
