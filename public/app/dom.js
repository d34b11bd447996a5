// @ts-check
/**
 * Tiny DOM and formatting helpers shared by the page's modules. Everything the page shows goes through
 * textContent (never innerHTML), so model output, tool results and arguments cannot inject markup.
 */

/** @typedef {Node | string | null | undefined | false} Child */

/**
 * Creates an element: `props` are attributes, plus `class`, `text`, `dataset` and `on<event>` listeners.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown>} [props]
 * @param {...(Child | Child[])} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = String(value);
    else if (key === "text") node.textContent = String(value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) node.append(child);
  return node;
}

/**
 * Pretty JSON for arguments and results; JSON text is re-indented, other strings are shown as they are.
 * @param {unknown} value
 * @returns {string}
 */
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

/** @param {number} ms */
export function formatDuration(ms) {
  if (!Number.isFinite(ms) || ms < 0) return "";
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/**
 * The readable text of content blocks: text blocks joined, images and other blocks named.
 * @param {unknown} content a string, or content blocks (`{type:"text", text}`, `{type:"image", mimeType}`, …)
 * @returns {string}
 */
export function textOfContent(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((/** @type {{ type?: unknown; text?: unknown; mimeType?: unknown } | null} */ block) => {
      if (block?.type === "text") return String(block.text ?? "");
      if (block?.type === "image") return `[image ${block.mimeType ?? ""}]`.trim();
      return "";
    })
    .filter((text) => text !== "")
    .join("\n");
}
