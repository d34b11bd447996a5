/**
 * The Worker under test: the real app and Durable Object, plus fixture tools added to the catalog and fixture guardrails.
 */
import { addGuardrailModules } from "../../src/guardrails/catalog.ts";
import { addBundledToolModules } from "../../src/tools/catalog.ts";
import { fixtureGuardrails } from "./fixture-guardrails.ts";
import { fixtureTools } from "./fixture-tools.ts";

addBundledToolModules(fixtureTools);
addGuardrailModules(fixtureGuardrails);

export { AgentSession } from "../../src/session/agent-session.ts";
export { McpCredentials } from "../../src/mcp/oauth/mcp-credentials-object.ts";
export { McpSession } from "../../src/mcp/server/mcp-session-object.ts";
export { UserStore } from "../../src/users/user-store.ts";
export { default } from "../../src/index.ts";
