/**
 * The page's stylesheet (public/styles.css) closes every block it opens. A lost `}` is no syntax error
 * to a browser that nests CSS: every rule after it silently applies only inside the unclosed selector,
 * which once left the run timeline, the schedules panel and the elicitation form unstyled.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const STYLES = path.resolve(import.meta.dirname, "../public/styles.css");

/** Each top-level rule's selector (or at-rule) with its line, and the braces left open at the end. */
function topLevelBlocks(css: string): { blocks: { line: number; selector: string }[]; openAtEnd: number; closedUnopened: number[] } {
  // Comments and strings may hold braces that are not blocks; blank them, keeping the lines.
  const text = css.replace(/\/\*[\s\S]*?\*\/|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, (m) => m.replace(/[^\n]/g, " "));
  const blocks: { line: number; selector: string }[] = [];
  const closedUnopened: number[] = [];
  let depth = 0;
  let line = 1;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\n") line++;
    else if (ch === "{") {
      if (depth === 0) blocks.push({ line, selector: text.slice(start, i).trim() });
      depth++;
    } else if (ch === "}") {
      if (depth === 0) closedUnopened.push(line);
      else depth--;
      start = i + 1;
    } else if (ch === ";" && depth === 0) start = i + 1;
  }
  return { blocks, openAtEnd: depth, closedUnopened };
}

describe("public/styles.css", () => {
  const { blocks, openAtEnd, closedUnopened } = topLevelBlocks(readFileSync(STYLES, "utf8"));

  it("closes every block it opens, and closes none it did not open", () => {
    expect(openAtEnd).toBe(0);
    expect(closedUnopened).toEqual([]);
  });

  it("keeps the page's rules at the top level, where they apply to the page", () => {
    const selectors = blocks.map((b) => b.selector);
    for (const rule of [".timeline-row", ".timeline-ms", ".schedule-list", ".elicitation"]) expect(selectors).toContain(rule);
  });
});
