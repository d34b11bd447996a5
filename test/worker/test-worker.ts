/**
 * The Worker under test: the real app and Durable Object, plus fixture tools added to the catalog.
 */
import { addBundledToolModules } from "../../src/tools/catalog.ts";
import { fixtureTools } from "./fixture-tools.ts";

addBundledToolModules(fixtureTools);

export { AgentSession } from "../../src/session/agent-session.ts";
export { McpCredentials } from "../../src/mcp/oauth/mcp-credentials-object.ts";
export { default } from "../../src/index.ts";
