/**
 * A unified line diff for the redeploy's review (deployed tools/<name>.ts → the pending version), from a
 * longest-common-subsequence table. Tool files are a few hundred lines at most, so O(n·m) is fine.
 * Output: `--- a` / `+++ b` headers and `@@` hunks with `context` unchanged lines around each change.
 */

type Op = { kind: " " | "-" | "+"; line: string; a: number; b: number };

function diffOps(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) ops.push({ kind: " ", line: a[i]!, a: i++, b: j++ });
    else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) ops.push({ kind: "-", line: a[i]!, a: i++, b: j });
    else ops.push({ kind: "+", line: b[j]!, a: i, b: j++ });
  }
  return ops;
}

/** The diff of `before` → `after` as text; empty when they are equal. */
export function unifiedDiff(before: string, after: string, labels: { a: string; b: string }, context = 3): string {
  const a = before === "" ? [] : before.replace(/\n$/, "").split("\n");
  const b = after === "" ? [] : after.replace(/\n$/, "").split("\n");
  const ops = diffOps(a, b);
  const changed = ops.map((op, k) => (op.kind !== " " ? k : -1)).filter((k) => k >= 0);
  if (changed.length === 0) return "";
  const out = [`--- ${labels.a}`, `+++ ${labels.b}`];
  let k = 0;
  while (k < changed.length) {
    const start = Math.max(0, changed[k]! - context);
    let end = Math.min(ops.length, changed[k]! + context + 1);
    // Extend the hunk while the next change is within reach of its context.
    while (k + 1 < changed.length && changed[k + 1]! - context <= end) end = Math.min(ops.length, changed[++k]! + context + 1);
    k += 1;
    const hunk = ops.slice(start, end);
    const aCount = hunk.filter((op) => op.kind !== "+").length;
    const bCount = hunk.filter((op) => op.kind !== "-").length;
    const aStart = aCount ? hunk[0]!.a + 1 : hunk[0]!.a;
    const bStart = bCount ? hunk[0]!.b + 1 : hunk[0]!.b;
    out.push(`@@ -${aStart},${aCount} +${bStart},${bCount} @@`, ...hunk.map((op) => `${op.kind}${op.line}`));
  }
  return out.join("\n");
}
