/**
 * The tools panel: what GET /v1/tools lists (bundled tools, and tools written by the agent with their
 * review status), each marked when the current session can use it. Rendered by main.js; read-only.
 */
import { el } from "./dom.js";

const STATUS_LABELS = { bundled: "bundled", pending: "pending review", deployed: "deployed", rejected: "rejected" };

export function renderTools(container, list, sessionTools) {
  const available = new Set(sessionTools ?? []);
  const groups = [
    ["Bundled", list?.bundled ?? []],
    ["Written by the agent", list?.written ?? []],
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
              el("span", { class: `badge badge-${tool.status}`, text: STATUS_LABELS[tool.status] ?? tool.status }),
              available.has(tool.name) ? el("span", { class: "badge badge-session", title: "Available in this session", text: "in session" }) : null,
            ),
          ),
        ),
      ),
    );
  container.replaceChildren(...(sections.length > 0 ? sections : [el("p", { class: "muted", text: "No tools registered." })]));
}

export function renderToolsError(container, message) {
  container.replaceChildren(el("p", { class: "muted", role: "alert", text: message }));
}
