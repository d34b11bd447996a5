/**
 * Drives the pi-agent-core peer for the step comparison: forks pi-agent-process.ts in its own Node 22
 * process (the one `npm run` puts first on PATH) pointed at the bench LLM, seeds each session's transcript
 * with the canonical history and runs turns over IPC. pi-ai's Chat Completions API always streams, so
 * this peer has a streaming mode only.
 * Invariant: `stop()` ends the child and waits for it; a failed turn throws.
 */
import { fork, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchModel, PI_PROVIDER, type PiAnswer, type PiCommand } from "./pi-agent-process.ts";
import { newTag, type StartedRuntime } from "./runtime.ts";
import { seedHistory, toPiMessages } from "./seed-history.ts";

const CHILD = join(dirname(fileURLToPath(import.meta.url)), "pi-agent-process.ts");
const STOP_GRACE_MS = 5_000;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type Pending = { resolve: (answer: PiAnswer) => void; reject: (err: Error) => void };

export async function startPiAgent(llmUrl: string, modelId = "bench-model"): Promise<StartedRuntime> {
  const child: ChildProcess = fork(CHILD, [], {
    // Type stripping only: --experimental-transform-types would add source maps, a per-stack-trace cost
    // (~4% of pi's CPU in a profile) that pi does not pay as shipped JavaScript.
    execArgv: ["--experimental-strip-types", "--disable-warning=ExperimentalWarning"],
    env: { ...process.env, OPENAI_BASE_URL: llmUrl, OPENAI_MODEL: modelId },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const pending = new Map<number, Pending>();
  let nextId = 1;
  child.on("message", (answer: PiAnswer) => {
    pending.get(answer.id)?.resolve(answer);
    pending.delete(answer.id);
  });
  void exited.then(() => {
    for (const p of pending.values()) p.reject(new Error(`pi-agent-core peer exited (code ${child.exitCode})`));
    pending.clear();
  });
  const call = (command: DistributiveOmit<PiCommand, "id">): Promise<PiAnswer & { ok: true }> =>
    new Promise<PiAnswer>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.send({ ...command, id });
    }).then((answer) => {
      if (!answer.ok) throw new Error(`pi-agent-core peer: ${answer.error}`);
      return answer;
    });

  const model = benchModel(llmUrl, modelId);
  return {
    runtimes: [
      {
        name: "pi-agent-core",
        mode: "streaming",
        async seed(size, label) {
          const tag = newTag(label);
          await call({
            type: "seed",
            tag,
            messages: toPiMessages(seedHistory(size), { api: model.api, provider: PI_PROVIDER, id: model.id }),
          });
          return { tag, turn: async (command) => void (await call({ type: "turn", tag, command })) };
        },
      },
    ],
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.disconnect();
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
