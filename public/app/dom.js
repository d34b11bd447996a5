/**
 * Tiny DOM and formatting helpers shared by the page's modules. Everything the page shows goes through
 * textContent (never innerHTML), so model output, tool results and arguments cannot inject markup.
 */

/** Creates an element: `props` are attributes, plus `class`, `text`, `dataset` and `on<event>` listeners. */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) node.append(child);
  return node;
}

/** Pretty JSON for arguments and results; JSON text is re-indented, other strings are shown as they are. */
export function formatJson(value) {
  if (typeof value === "string") {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  if (value === undefined) return "";
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

export function formatDuration(ms) {
  if (!Number.isFinite(ms) || ms < 0) return "";
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** The readable text of content blocks: text blocks joined, images and other blocks named. */
export function textOfContent(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block) => {
      if (block?.type === "text") return block.text;
      if (block?.type === "image") return `[image ${block.mimeType ?? ""}]`.trim();
      return "";
    })
    .filter((text) => text !== "")
    .join("\n");
}
