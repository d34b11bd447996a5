/**
 * Starts a real `wrangler dev` for end-to-end tests: a free port on 127.0.0.1, a throwaway persist dir,
 * vars passed as `--var`, and no `.dev.vars`/`.env` from the developer's tree (an empty --env-file), so a
 * local OPENAI_API_KEY never leaks into a test. Run as deployed, the Worker gets a fixed SIGNING_SECRET
 * unless the caller passes its own (an empty one for a Worker deployed without it); run local, it makes its
 * own and keeps it in the persist dir, as `npm start` does. Called from e2e and browser test hooks and by the benchmark
 * (scripts/bench), so it lives outside test/.
 * Invariant: wrangler runs in its own process group; `stop()` (or this process exiting) ends the whole
 * group, workerd included, and waits until it is gone.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export type WranglerDevOptions = {
  /** Plain-text vars (secrets too: in dev a secret is just a var). */
  vars?: Record<string, string>;
  /** Pass `LOCAL_DEV:true`, as `npm start` does; default true. False runs the Worker as deployed. */
  local?: boolean;
  /** Local state dir; default a fresh temp dir, removed by stop(). A given dir is kept. */
  persistTo?: string;
  /** Default: a free port picked now. */
  port?: number;
  /** Path to the wrangler config; default the one in cwd. */
  config?: string;
  /** Default: the repository root. */
  cwd?: string;
  /** How long to wait for the first HTTP answer; default 60 s. */
  startupTimeoutMs?: number;
  /** More `wrangler dev` flags, e.g. `--minify=false` for readable CPU profiles. */
  extraArgs?: string[];
  /** Where the throwaway dir (default state, empty env file) is made; default the OS temp dir. */
  scratchRoot?: string;
  /**
   * Serve https with this key and certificate (PEM files), as a deployed Worker's origin is; the caller
   * must trust the certificate for the readiness check (e.g. `tls.setDefaultCACertificates`).
   */
  tls?: { keyPath: string; certPath: string };
};

export type WranglerDev = {
  /** `http://127.0.0.1:<port>` (`https://` with `tls`), no trailing slash. */
  url: string;
  port: number;
  persistTo: string;
  /** The Chrome DevTools protocol port of the Worker's isolate (`/json` lists its targets). */
  inspectorPort: number;
  /** The process group of wrangler and its workerd (e.g. to read their CPU time). */
  processGroup: number | undefined;
  /** Ends the process group and waits for it; safe to call twice. */
  stop(): Promise<void>;
  /** Everything wrangler printed so far (stdout and stderr interleaved). */
  logs(): string;
};

/** The SIGNING_SECRET of a Worker run as deployed: fixed, so a restart on the same persist dir keeps its ids. */
export const DEPLOYED_TEST_SIGNING_SECRET = "wrangler-dev-test-signing-secret-0123456789";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const BIN_DIR = join(REPO_ROOT, "node_modules", ".bin");

export const DEFAULT_STARTUP_TIMEOUT_MS = 60_000;
/** Readiness poll period: startup takes 2–5 s here, so 200 ms costs little and notices "ready" quickly. */
const READY_POLL_MS = 200;
/** wrangler stops workerd and exits within ~1 s on SIGTERM; past this it gets SIGKILL. */
const STOP_GRACE_MS = 10_000;
/** Keeps a chatty server from growing the test process without bound; the tail is what matters. */
const MAX_LOG_CHARS = 1_000_000;

/** Process-group id → its scratch dir, for servers still running: killed and removed if this process exits first. */
const liveGroups = new Map<number, string>();
let exitHookInstalled = false;

export async function startWranglerDev(options: WranglerDevOptions = {}): Promise<WranglerDev> {
  // Ports are picked before wrangler binds them, so a parallel test file can take one first: try again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startWranglerDevOnce(options);
    } catch (err) {
      // A fixed port may be briefly held by the previous server of a restart; a picked one by a parallel test.
      if (!(err instanceof PortClash) || attempt >= 3) throw err;
    }
  }
}

async function startWranglerDevOnce(options: WranglerDevOptions): Promise<WranglerDev> {
  installExitHook();
  const scratch = mkdtempSync(join(options.scratchRoot ?? tmpdir(), "edge-agent-e2e-"));
  const persistTo = options.persistTo ?? join(scratch, "state");
  const emptyEnvFile = join(scratch, "empty.env");
  writeFileSync(emptyEnvFile, "");
  const port = options.port ?? (await findFreePort());
  const url = `${options.tls ? "https" : "http"}://127.0.0.1:${port}`;
  const inspectorPort = await findFreePort();

  const args = [
    "dev",
    // No remote bindings: the AI binding would otherwise need a Cloudflare login (as in `npm start`).
    "--local",
    "--port",
    String(port),
    "--inspector-port",
    String(inspectorPort),
    "--ip",
    "127.0.0.1",
    "--persist-to",
    persistTo,
    // Given an env file, wrangler skips .dev.vars and .env: the test's vars are the only ones.
    "--env-file",
    emptyEnvFile,
    "--show-interactive-dev-session=false",
    ...(options.config ? ["--config", options.config] : []),
    ...(options.tls
      ? ["--local-protocol", "https", "--https-key-path", options.tls.keyPath, "--https-cert-path", options.tls.certPath]
      : []),
    ...(options.extraArgs ?? []),
    ...(options.local === false ? [] : ["--var", "LOCAL_DEV:true"]),
    ...Object.entries(varsOf(options)).flatMap(([key, value]) => ["--var", `${key}:${value}`]),
  ];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // wrangler refuses Node 20; node_modules/.bin holds Node 22 and must win for wrangler and its build step.
    PATH: `${BIN_DIR}${delimiter}${process.env.PATH ?? ""}`,
    WRANGLER_SEND_METRICS: "false",
    NO_COLOR: "1",
  };
  delete env.CLOUDFLARE_INCLUDE_PROCESS_ENV;

  const child = spawn(join(BIN_DIR, "wrangler"), args, {
    cwd: options.cwd ?? REPO_ROOT,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const append = (chunk: Buffer) => {
    output += chunk.toString("utf8");
    if (output.length > MAX_LOG_CHARS) output = output.slice(-MAX_LOG_CHARS);
  };
  child.stdout?.on("data", append);
  child.stderr?.on("data", append);
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const spawnFailed = new Promise<Error>((done) => child.once("error", done));
  const pgid = child.pid;
  if (pgid !== undefined) liveGroups.set(pgid, scratch);

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await killGroup(child, pgid, exited);
    rmSync(scratch, { recursive: true, force: true });
  };

  try {
    await waitUntilReady(url, options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS, () => output, exited, spawnFailed);
  } catch (err) {
    await stop();
    const reason = err instanceof Error ? err.message : String(err);
    const message = `wrangler dev did not start: ${reason}\n--- wrangler output ---\n${output}`;
    throw err instanceof PortClash ? new PortClash(message) : new Error(message);
  }
  return { url, port, persistTo, inspectorPort, processGroup: pgid, stop, logs: () => output };
}

function varsOf(options: WranglerDevOptions): Record<string, string> {
  const vars = options.vars ?? {};
  if (options.local !== false || "SIGNING_SECRET" in vars) return vars;
  return { SIGNING_SECRET: DEPLOYED_TEST_SIGNING_SECRET, ...vars };
}

class PortClash extends Error {}

/**
 * Resolves once this wrangler says it is ready on `url` and the URL answers HTTP (any status); rejects when
 * wrangler exits, cannot bind, or the time is up. An HTTP answer alone is not enough: when two servers were
 * handed the same free port, the loser's poll is answered by the winner while the loser fails to bind.
 */
async function waitUntilReady(
  url: string,
  timeoutMs: number,
  output: () => string,
  exited: Promise<void>,
  spawnFailed: Promise<Error>,
): Promise<void> {
  let gone: string | undefined;
  void exited.then(() => (gone = "wrangler exited before it answered"));
  void spawnFailed.then((err) => (gone = `could not spawn wrangler: ${err.message}`));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (output().includes("Address already in use")) throw new PortClash("a port it was given is in use");
    if (gone) throw new Error(gone);
    if (output().includes(`Ready on ${url}`)) {
      try {
        await fetch(`${url}/v1/tools`, { signal: AbortSignal.timeout(5_000) }).then((res) => res.body?.cancel());
        return;
      } catch {
        // Bound but not answering yet: try again shortly.
      }
    }
    await new Promise((r) => setTimeout(r, READY_POLL_MS));
  }
  throw new Error(`no HTTP answer on ${url} within ${timeoutMs} ms`);
}

async function killGroup(child: ChildProcess, pgid: number | undefined, exited: Promise<void>): Promise<void> {
  if (pgid === undefined) return;
  signalGroup(pgid, "SIGTERM");
  if (!(await groupGone(pgid, exited, STOP_GRACE_MS))) {
    signalGroup(pgid, "SIGKILL");
    await groupGone(pgid, exited, STOP_GRACE_MS);
  }
  liveGroups.delete(pgid);
  child.stdout?.destroy();
  child.stderr?.destroy();
}

/** True once the leader was reaped and no process of the group is left. */
async function groupGone(pgid: number, exited: Promise<void>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let leaderExited = false;
  void exited.then(() => (leaderExited = true));
  while (Date.now() < deadline) {
    if (leaderExited && !signalGroup(pgid, 0)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/** Sends `signal` to every process in the group; false when the group no longer exists. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: nothing left in the group
  }
}

/**
 * A test that throws past its afterAll, or a runner that exits early, must not leave workerd behind.
 * "exit" handlers run synchronously, so SIGKILL is all that can be done there. A termination signal does
 * the same, then ends the process as the signal would have, unless another listener handles that signal.
 */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  const killAll = () => {
    for (const [pgid, scratch] of liveGroups) {
      signalGroup(pgid, "SIGKILL");
      rmSync(scratch, { recursive: true, force: true });
    }
    liveGroups.clear();
  };
  process.on("exit", killAll);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      killAll();
      // Keep the signal's usual meaning when no one else handles it: end the process.
      if (process.listenerCount(signal) === 1) process.exit(128 + (signal === "SIGINT" ? 2 : signal === "SIGTERM" ? 15 : 1));
    });
  }
}

/** A port nobody listens on right now (the OS picks it; the tiny race until wrangler binds is accepted). */
export function findFreePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}
