/**
 * The sub-agent tests' Worker: the real app and Durable Object with the fixture tools and the fixture
 * sub-agents (sub-agent-fixtures.ts). A Worker of its own, so restart tests reset only its objects.
 */
import { addBundledToolModules } from "../../src/tools/catalog.ts";
import { fixtureTools } from "./fixture-tools.ts";
import { subAgentFixtures } from "./sub-agent-fixtures.ts";

addBundledToolModules({ ...fixtureTools, ...subAgentFixtures });

export { AgentSession } from "../../src/session/agent-session.ts";
export { default } from "../../src/index.ts";
