/**
 * The Worker under test: the real app and Durable Object, plus fixture tools added to the catalog.
 */
import { addBundledToolModules } from "../../src/tools/catalog.ts";
import { fixtureTools } from "./fixture-tools.ts";

addBundledToolModules(fixtureTools);

export { AgentSession } from "../../src/session/agent-session.ts";
export { McpCredentials } from "../../src/mcp/mcp-credentials-object.ts";
export { UserStore } from "../../src/users/user-store.ts";
export { default } from "../../src/index.ts";
