/**
 * The redeploy's review: for each pending tool, its source, the result of every check and a diff against
 * the deployed version (tools/<name>.ts), printed before anything ships; then one question, answered
 * from the terminal or from stdin (`--yes` answers it for CI). No answer (end of input) means no. Deployed
 * tools restored from R2 are reviewed the same way. Everything printed is escaped (control-chars.ts): the
 * text comes from KV and R2, and must not be able to rewrite the screen it is reviewed on.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline/promises";
import type { WrittenToolEntry } from "../../src/tools/written/spec.ts";
import type { ToolCheckReport } from "./check-tool.ts";
import { escapeForTerminal } from "./control-chars.ts";
import { unifiedDiff } from "./line-diff.ts";

/** `restore`: a deployed tool missing from tools/, put back from R2 so this deploy keeps it. */
export type Reviewed = { entry: WrittenToolEntry; source: string | null; report: ToolCheckReport; restore?: boolean };
export type ReviewMode = { dryRun: boolean };

/** The verdict as the header shows it; a dry run records nothing, so it only says what would happen. */
function verdict(report: ToolCheckReport, restore: boolean, { dryRun }: ReviewMode): string {
  if (report.ok) return "checks passed";
  if (report.blame === "project") return "NOT JUDGED: the project itself is broken";
  if (restore) return "NOT RESTORED: its stored source fails the checks";
  return dryRun ? "WOULD BE REJECTED (dry run: nothing recorded)" : "REJECTED";
}

const indent = (text: string, prefix = "    ") => text.replace(/^/gm, prefix);

function describeAuthor(entry: WrittenToolEntry): string {
  const who = [entry.author.sessionId && `session ${entry.author.sessionId}`, entry.author.toolCallId && `call ${entry.author.toolCallId}`]
    .filter(Boolean)
    .join(", ");
  return `${who || "unknown author"}, ${entry.writtenAt}`;
}

/** The review text of one tool: header, check results, source (numbered) and the diff. */
export async function renderReview(root: string, { entry, source, report, restore }: Reviewed, mode: ReviewMode): Promise<string> {
  const what = restore ? " (deployed, missing from tools/: restored from R2)" : "";
  const lines = [
    `━━ ${entry.name} v${entry.version}${what} — ${verdict(report, restore === true, mode)} (written by ${describeAuthor(entry)})`,
    "checks:",
  ];
  for (const step of report.steps)
    lines.push(
      `  ${step.ok ? "✓" : "✗"} ${step.check}${step.detail ? `: ${step.ok ? step.detail : ""}` : ""}`,
      ...(step.ok || !step.detail ? [] : [indent(step.detail)]),
    );
  if (source === null) return escapeForTerminal(lines.join("\n"));
  const width = String(source.split("\n").length).length;
  lines.push(
    `source (tools/${entry.name}.ts):`,
    ...source
      .replace(/\n$/, "")
      .split("\n")
      .map((l, i) => `  ${String(i + 1).padStart(width)} │ ${l}`),
  );
  const deployedFile = path.join(root, "tools", `${entry.name}.ts`);
  const deployed = existsSync(deployedFile) ? await readFile(deployedFile, "utf8") : undefined;
  if (deployed === undefined) lines.push(`diff: no deployed version in tools/ (a new tool)`);
  else {
    const diff = unifiedDiff(deployed, source, { a: `tools/${entry.name}.ts (deployed)`, b: `tools/${entry.name}.ts (v${entry.version})` });
    lines.push(diff ? `diff against the deployed version:\n${indent(diff, "  ")}` : "diff: identical to the deployed version");
  }
  return escapeForTerminal(lines.join("\n"));
}

/** Asks `question`; true only for an answer starting with y. Reads stdin even when it is not a terminal. */
export async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY === true });
  try {
    const closed = new Promise<string>((resolve) => rl.once("close", () => resolve("")));
    const answer = await Promise.race([rl.question(`${question} [y/N] `), closed]);
    return /^\s*y/i.test(answer);
  } finally {
    rl.close();
  }
}
