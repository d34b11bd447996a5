/**
 * What the "user" of a client conformance run asks the session (worker-client.ts), and how the scripted
 * model reads it back (tool-caller.ts). No imports: the driver starts once per scenario, so it stays light.
 */
/** The name the driver gives the scenario's server in its session: its tools are `suite_<tool>`. */
export const SUITE_SERVER = "suite";
export const ARGUMENTS_LINE = "Arguments by tool: ";

/** The user's request; `given` maps a tool's MCP name to the arguments the scenario names for it. */
export function askForEveryTool(given: Record<string, Record<string, unknown>>): string {
  const line = Object.keys(given).length > 0 ? `\n${ARGUMENTS_LINE}${JSON.stringify(given)}` : "";
  return `Call every tool of the MCP server "${SUITE_SERVER}" once.${line}`;
}
