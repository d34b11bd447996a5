/**
 * The bundled tool catalog: the build-time generated registry, plus modules a host adds before serving
 * (the test Worker adds its fixture tools this way). Bundled tools are static imports: nothing is evaluated.
 */
import { toolRegistry } from "./registry.generated.ts";
import type { ToolRegistry } from "../core/index.ts";

const extraModules: Record<string, { getTool: ToolRegistry[string]["getTool"] }> = {};

export function addBundledToolModules(modules: ToolRegistry): void {
  Object.assign(extraModules, modules);
}

/** Registry entries in sorted order (generated first, extras after). */
export function bundledRegistry(): ToolRegistry {
  return { ...toolRegistry, ...extraModules };
}

export function bundledToolNames(): string[] {
  return [...Object.keys(bundledRegistry()), "listTools"];
}
