/**
 * Characters a written tool's source may not carry, and how the redeploy prints text it did not write.
 * C0 controls (but tab and newline), DEL, C1 controls and the bidirectional overrides and isolates can
 * make a terminal or an editor show other code than the file holds (an ESC sequence erases lines of the
 * review; a bidi override reorders them). The redeploy refuses such a source, and escapes everything it
 * prints from KV and R2, so the review shows what is there. Used by check-tool.ts and review.ts.
 */

/** Code points refused in a source: C0 but \t and \n, \r (the renderer writes none), DEL, C1, bidi controls. */
const REFUSED = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
/** At most this many are listed: enough to find them, short enough for a KV row. */
const MAX_LISTED = 5;

const codePoint = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;

/** One line per refused character (line, column, code point); empty when the source is clean. */
export function findRefusedCharacters(source: string): string[] {
  const found: string[] = [];
  const lines = source.split("\n");
  for (const [i, line] of lines.entries()) {
    for (const match of line.matchAll(REFUSED)) {
      if (found.length === MAX_LISTED) return [...found, "…and more"];
      found.push(`line ${i + 1}, column ${match.index + 1}: ${codePoint(match[0])} (a control or bidirectional-override character)`);
    }
  }
  return found;
}

/** `text` with every refused character shown as `\u{XXXX}`, so printing it cannot move the cursor or reorder lines. */
export function escapeForTerminal(text: string): string {
  return text.replace(REFUSED, (char) => `\\u{${char.codePointAt(0)!.toString(16).toUpperCase()}}`);
}
