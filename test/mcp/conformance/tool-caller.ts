/**
 * The scripted model of the client conformance runs through the Worker, and what the "user" asks it.
 * The user message asks for every tool of the scenario's server once, naming the arguments a scenario
 * gives (http-custom-headers wants exact ones); the model (answering on the mock LLM server the test
 * starts) calls those tools one per turn, in listed order, with arguments made from each tool's schema
 * as the Worker offered it, then answers in text. Shared by conformance.node.test.ts (the model) and
 * worker-client.ts (the user, through user-request.ts).
 */
import type { MockReply, RecordedRequest } from "../../../support/mock-openai-server.ts";
import { mcpToolName } from "../../../src/mcp/client/mcp-tool.ts";
import { ARGUMENTS_LINE, SUITE_SERVER } from "./user-request.ts";

type Schema = { properties?: Record<string, { type?: unknown; enum?: unknown[]; default?: unknown }> };

/** A value of each property's type: enough for a conformance tool, never a real call. */
export function argumentsFor(schema: Schema | undefined): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(schema?.properties ?? {})) {
    if (prop.default !== undefined) args[name] = prop.default;
    else if (Array.isArray(prop.enum) && prop.enum.length > 0) args[name] = prop.enum[0];
    else if (prop.type === "number" || prop.type === "integer") args[name] = Object.keys(args).length + 2;
    else if (prop.type === "boolean") args[name] = true;
    else if (prop.type === "array") args[name] = [];
    else if (prop.type === "object") args[name] = {};
    else args[name] = "conformance";
  }
  return args;
}

type ChatMessage = { role?: string; content?: unknown; tool_calls?: { function?: { name?: string } }[] };
type OfferedTool = { function?: { name?: string; parameters?: Schema } };

/** The model's next reply: the next uncalled tool of the suite's server since the last user message, or text. */
export function callEveryTool(request: RecordedRequest): MockReply {
  const messages = (request.body.messages ?? []) as ChatMessage[];
  const lastUser = messages.findLastIndex((m) => m.role === "user");
  const asked = lastUser < 0 ? "" : textOf(messages[lastUser]!.content);
  if (!asked.includes(`MCP server "${SUITE_SERVER}"`)) return { text: "I only call the suite's tools." };
  const named = asked.includes(ARGUMENTS_LINE)
    ? (JSON.parse(asked.slice(asked.indexOf(ARGUMENTS_LINE) + ARGUMENTS_LINE.length)) as Record<string, Record<string, unknown>>)
    : {};
  // The user names MCP tools; the model sees them as the session's `suite_<tool>`. A null the user gives
  // is left out: the session refuses a call whose arguments break the tool's schema before it reaches the
  // server (null is no boolean), and a model retrying would drop it (http-custom-headers' "null or omitted").
  const given = Object.fromEntries(
    Object.entries(named).map(([tool, args]) => [
      mcpToolName(SUITE_SERVER, tool),
      Object.fromEntries(Object.entries(args).filter(([, value]) => value !== null)),
    ]),
  );
  const called = new Set(messages.slice(lastUser + 1).flatMap((m) => (m.tool_calls ?? []).map((c) => c.function?.name ?? "")));
  const next = ((request.body.tools ?? []) as OfferedTool[]).find((t) => {
    const name = t.function?.name ?? "";
    return name.startsWith(`${SUITE_SERVER}_`) && !called.has(name);
  });
  if (!next) return { text: `Called ${called.size} tool(s).` };
  const name = next.function!.name!;
  return { toolCalls: [{ name, arguments: given[name] ?? argumentsFor(next.function?.parameters) }] };
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p?.text === "string" ? p.text : "")).join("");
  return "";
}
