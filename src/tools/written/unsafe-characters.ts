/**
 * Characters a written tool may not contain anywhere (code, label, description, schema): C0 and C1
 * control characters other than tab, LF and CR, and the bidi embedding, override and isolate marks.
 * Printed raw, the first are terminal escapes (ESC/CSI can erase the lines above: the review would show
 * less than ships); the second reorder what a reviewer sees (Trojan Source). Called by writeTool's checks.
 */

/** C0 but \t \n \r, DEL, C1; LRE RLE PDF LRO RLO; LRI RLI FSI PDI. */
const UNSAFE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const codePoint = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;

/** The first unsafe character of `text` with its line and column, or undefined when there is none. */
export function findUnsafeCharacter(text: string): { char: string; line: number; column: number } | undefined {
  const match = UNSAFE.exec(text);
  if (!match) return undefined;
  const before = text.slice(0, match.index);
  const line = before.split("\n").length;
  return { char: codePoint(match[0]), line, column: match.index - before.lastIndexOf("\n") };
}

/** One problem line for `field`, naming the character and where it is; empty when the text is clean. */
export function checkCharacters(field: string, text: string | undefined): string[] {
  if (text === undefined) return [];
  const found = findUnsafeCharacter(text);
  if (!found) return [];
  return [
    `${field} line ${found.line}, column ${found.column}: character ${found.char} is not allowed (control and bidi-override characters can hide code from the reviewer; write escapes such as "\\u001b" in strings instead)`,
  ];
}

/** Every string of a JSON value (keys too), for the schema, which is rendered into the source. */
export function checkJsonCharacters(field: string, value: unknown): string[] {
  const strings: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === "string") strings.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === "object") {
      for (const [k, inner] of Object.entries(v)) {
        strings.push(k);
        walk(inner);
      }
    }
  };
  walk(value);
  const bad = strings.map((s) => findUnsafeCharacter(s)).find((f) => f !== undefined);
  return bad
    ? [
        `${field} contains character ${bad.char}, which is not allowed (control and bidi-override characters can hide code from the reviewer)`,
      ]
    : [];
}
