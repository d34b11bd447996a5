/**
 * Runs documented shell commands the way a person would: one after another in a single bash process, so
 * variables set by one step are there for the next, and reports each step's stdout, stderr and exit status.
 * Used by the e2e test that checks the curl session of the docs. Also reads the ```sh blocks of a markdown file.
 * Invariant: a step's output is delimited by a random marker printed after it, never by timing.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";

export type StepResult = { command: string; stdout: string; stderr: string; exitCode: number };

export type ShellSessionOptions = { cwd?: string; env?: NodeJS.ProcessEnv; stepTimeoutMs?: number };

const DEFAULT_STEP_TIMEOUT_MS = 30_000;

/** The bodies of the markdown's ```sh fenced blocks, in order. */
export function shellBlocksOf(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!.trimEnd());
}

export async function runShellSession(steps: readonly string[], options: ShellSessionOptions = {}): Promise<StepResult[]> {
  const marker = `__step_done_${randomUUID().replaceAll("-", "")}__`;
  // Detached, so a hung step can be ended with everything it started (curl included).
  const shell = spawn("bash", ["--noprofile", "--norc"], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  let wake: (() => void) | undefined;
  const notify = () => wake?.();
  shell.stdout.on("data", (chunk: Buffer) => ((stdout += chunk.toString("utf8")), notify()));
  shell.stderr.on("data", (chunk: Buffer) => ((stderr += chunk.toString("utf8")), notify()));
  let exited = false;
  shell.once("exit", () => ((exited = true), notify()));

  const stdoutEnd = new RegExp(`\\n${marker}:(\\d+)\\n`);
  const stderrEnd = `\n${marker}\n`;
  const results: StepResult[] = [];
  try {
    for (const command of steps) {
      // The leading newline ends a last output line that had none (curl -s prints JSON without one).
      shell.stdin.write(`${command}\n__rc=$?; printf '\\n%s:%d\\n' '${marker}' "$__rc"; printf '\\n%s\\n' '${marker}' >&2\n`);
      const deadline = Date.now() + (options.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS);
      for (;;) {
        const out = stdoutEnd.exec(stdout);
        const errAt = stderr.indexOf(stderrEnd);
        if (out && errAt >= 0) {
          results.push({ command, stdout: stdout.slice(0, out.index), stderr: stderr.slice(0, errAt), exitCode: Number(out[1]) });
          stdout = stdout.slice(out.index + out[0].length);
          stderr = stderr.slice(errAt + stderrEnd.length);
          break;
        }
        if (exited) throw new Error(`bash exited during step:\n${command}\nstdout: ${stdout}\nstderr: ${stderr}`);
        const left = deadline - Date.now();
        if (left <= 0)
          throw new Error(
            `step did not finish within ${options.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS} ms:\n${command}\nstdout so far: ${stdout}`,
          );
        await new Promise<void>((done) => {
          const timer = setTimeout(done, left);
          wake = () => {
            clearTimeout(timer);
            done();
          };
        });
        wake = undefined;
      }
    }
  } finally {
    shell.stdin.end();
    if (!exited && shell.pid !== undefined) {
      try {
        process.kill(-shell.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  }
  return results;
}
