/**
 * Every host feature that adds to the core's unions (events, tool capabilities, tool context fields,
 * user-message marks) by declaration merging. A merged declaration counts only in a program that loads its
 * module; one missing would silently narrow the union there. So each module that reads those unions
 * loads this one (src/wire/events.ts for the events, src/tools for capabilities and contexts, the Worker
 * entry, tsconfig.page.json), and test/layering.node.test.ts fails when a file merging into the core is
 * not listed here. Type-only imports: bundles carry none of it.
 */
import type {} from "./llm/llm-vocabulary.ts";
import type {} from "./mcp/mcp-vocabulary.ts";
import type {} from "./schedules/schedule-vocabulary.ts";
import type {} from "./session/sub-agents/sub-agent-vocabulary.ts";
import type {} from "./users/memory-vocabulary.ts";
