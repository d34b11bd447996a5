/**
 * Where a JSON text first goes wrong, as an offset, line and column, for configuration errors that must
 * name the spot without quoting the text (a var such as MCP_SERVERS may hold tokens; V8's own message
 * quotes the text around the error). Called only after JSON.parse failed; a small recursive-descent scan.
 */

export type JsonErrorPosition = { offset: number; line: number; column: number };

export function locateJsonError(text: string): JsonErrorPosition {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const literal = (word: string) => {
    if (!text.startsWith(word, i)) fail();
    i += word.length;
  };
  const string = () => {
    i++; // opening quote
    while (i < text.length && text[i] !== '"') {
      const c = text.charCodeAt(i);
      if (c < 0x20) fail();
      if (text[i] === "\\") {
        const next = text[i + 1];
        if (next === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail();
          i += 6;
          continue;
        }
        if (next === undefined || !'"\\/bfnrt'.includes(next)) fail();
        i += 2;
        continue;
      }
      i++;
    }
    if (i >= text.length) fail();
    i++;
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!match) fail();
    i += match![0].length;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ":") fail();
        i++;
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") return void i++;
        else fail();
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") return void i++;
        else fail();
      }
    }
    if (c === '"') return string();
    if (c === "t") return literal("true");
    if (c === "f") return literal("false");
    if (c === "n") return literal("null");
    return number();
  };
  let offset = text.length;
  try {
    value();
    ws();
    offset = i;
  } catch (at) {
    offset = typeof at === "number" ? at : i;
  }
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { offset, line, column: offset - before.lastIndexOf("\n") };
}
