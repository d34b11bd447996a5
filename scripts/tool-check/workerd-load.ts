/**
 * Loads bundled tool modules in workerd (through Miniflare) and checks each against the tool file
 * contract there: the isolate has no bindings, no network (every outbound request is refused in Node and
 * recorded) and no file system, so tool code, whoever wrote it, never runs in the Node process that
 * checks it. Called by the registry generator and the redeploy's smoke load. A module that does not
 * finish loading in time (an endless loop) fails, and the isolate is replaced for the next one.
 */
import { Miniflare, convertV4MiniflareOptions } from "miniflare";
import { describeError } from "../../src/core/index.ts";
import { DRAFT_COMPATIBILITY_DATE } from "../../src/tools/written/draft-tool.ts";
import { CHECKER_MODULE, listModules } from "./bundle-tools.ts";

/** Loading a tool is a handful of imports; a module still busy after this is stuck. */
export const LOAD_TIMEOUT_MS = 5_000;
/** Same runtime as the Worker and its drafts (wrangler.toml's compatibility_date). */
export const CHECK_COMPATIBILITY_DATE = DRAFT_COMPATIBILITY_DATE;

export type ModuleCheck = { name: string; module: string };

type Sandbox = { mf: Miniflare; outbound: string[] };

async function startSandbox(dir: string): Promise<Sandbox> {
  const outbound: string[] = [];
  const modules = (await listModules(dir)).map((name) => ({ type: "ESModule" as const, path: `${dir}/${name}` }));
  const checker = modules.find((m) => m.path.endsWith(`/${CHECKER_MODULE}`));
  if (!checker) throw new Error(`${CHECKER_MODULE} is missing from ${dir}`);
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      modulesRoot: dir,
      // The checker first: it is the main module.
      modules: [checker, ...modules.filter((m) => m !== checker)],
      compatibilityDate: CHECK_COMPATIBILITY_DATE,
      // Answered here, in Node, without a request being made.
      outboundService: (request: Request) => {
        outbound.push(request.url);
        return new Response("network access is disabled while tools are checked", { status: 403 });
      },
    }),
  );
  await mf.ready;
  return { mf, outbound };
}

const timeout = (ms: number) => new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), ms).unref());

/** Checks each module in `dir` (a bundle from bundleTools); returns each name's problems (empty when fine). */
export async function checkModulesInWorkerd(
  dir: string,
  checks: readonly ModuleCheck[],
  timeoutMs = LOAD_TIMEOUT_MS,
): Promise<Map<string, string[]>> {
  const results = new Map<string, string[]>();
  if (checks.length === 0) return results;
  let sandbox: Sandbox | undefined;
  try {
    for (const { name, module } of checks) {
      sandbox ??= await startSandbox(dir);
      const before = sandbox.outbound.length;
      const reply = sandbox.mf
        .dispatchFetch("http://tool-check.invalid/", { method: "POST", body: JSON.stringify({ module: `./${module}`, name }) })
        .then(
          async (res) => ((await res.json()) as { problems: string[] }).problems,
          (err: unknown) => [`failed to load: ${describeError(err)}`],
        );
      const outcome = await Promise.race([reply, timeout(timeoutMs)]);
      if (outcome === "timeout") {
        results.set(name, [`did not finish loading within ${timeoutMs} ms (a loop at load time?)`]);
        await sandbox.mf.dispose().catch(() => {});
        sandbox = undefined; // the stuck isolate is gone; the next module gets a fresh one
        continue;
      }
      const reached = sandbox.outbound.slice(before);
      results.set(name, [...outcome, ...reached.map((url) => `tried to reach the network while loading: ${url}`)]);
    }
  } finally {
    await sandbox?.mf.dispose().catch(() => {});
  }
  return results;
}
