// @ts-check
/**
 * The tools panel: what GET /v1/tools lists (bundled tools, and tools written by the agent with their
 * review status), each marked when the current session can use it, and the session's tools from remote
 * MCP servers (from its snapshot), marked "MCP" with their server. Rendered by main.js; read-only.
 */
import { el } from "./dom.js";

/** @import { McpToolEntry, ToolEntry, ToolList } from "../client.js" */

/** @type {Record<string, string>} */
const STATUS_LABELS = { bundled: "bundled", pending: "pending review", deployed: "deployed", rejected: "rejected", mcp: "MCP" };

/**
 * @param {HTMLElement} container
 * @param {ToolList | undefined} list
 * @param {string[] | undefined} sessionTools
 * @param {McpToolEntry[]} [mcpTools] the session's tools from remote MCP servers
 */
export function renderTools(container, list, sessionTools, mcpTools = []) {
  const available = new Set(sessionTools ?? []);
  /** @type {[string, ToolEntry[]][]} */
  const groups = [
    ["Bundled", list?.bundled ?? []],
    ["Written by the agent", list?.written ?? []],
    ["From MCP servers", mcpTools.map((t) => ({ ...t, status: "mcp" }))],
  ];
  const sections = groups
    .filter(([, tools]) => tools.length > 0)
    .map(([title, tools]) =>
      el(
        "section",
        { class: "tool-group" },
        el("h3", { text: title }),
        el(
          "ul",
          { class: "tool-list" },
          tools.map((tool) =>
            el(
              "li",
              { class: "tool-entry", dataset: { toolName: tool.name, status: tool.status } },
              el("code", { class: "tool-entry-name", text: tool.name }),
              el("span", {
                class: `badge badge-${tool.status}`,
                text: STATUS_LABELS[tool.status] ?? tool.status,
                title: tool.status === "mcp" ? `Tool "${tool.tool}" of MCP server "${tool.server}"` : undefined,
              }),
              tool.status === "mcp" ? el("span", { class: "badge badge-mcp-server", text: tool.server }) : null,
              available.has(tool.name)
                ? el("span", { class: "badge badge-session", title: "Available in this session", text: "in session" })
                : null,
            ),
          ),
        ),
      ),
    );
  container.replaceChildren(...(sections.length > 0 ? sections : [el("p", { class: "muted", text: "No tools registered." })]));
}

/**
 * @param {HTMLElement} container
 * @param {string} message
 */
export function renderToolsError(container, message) {
  container.replaceChildren(el("p", { class: "muted", role: "alert", text: message }));
}
