/**
 * The per-call pipeline (prepare → execute → finalize): every failure becomes one error result,
 * hooks can block or rewrite a call, the run's abort reaches execute, and a per-tool timeout wins
 * even over a tool that ignores its signal.
 */
import { describe, expect, it } from "vitest";
import type { AgentTool, AgentToolResult, Usage } from "../../src/core/types.ts";
import { makeTool, runBatch, runOne, sleep, textOf, textResult, toolCall } from "./support.ts";

const usage: Usage = { inputTokens: 1, outputTokens: 2, totalTokens: 3 };

describe("prepare", () => {
  it("answers a call to an unknown tool with an error result naming it", async () => {
    const { message, text } = await runOne(undefined, {});
    expect(message.isError).toBe(true);
    expect(message.toolCallId).toBe("c1");
    expect(text).toMatch(/^Tool "missing" not found/);
  });

  it("blocks a call when beforeToolCall says so, using its reason", async () => {
    let ran = false;
    const tool = makeTool("rm", {
      execute: () => {
        ran = true;
        return textResult("deleted");
      },
    });
    const { message, text } = await runOne(tool, {}, { beforeToolCall: () => ({ block: true, reason: "not on my watch" }) });
    expect(message.isError).toBe(true);
    expect(text).toBe("not on my watch");
    expect(ran).toBe(false);
  });

  it("blocks with a default message when beforeToolCall gives no reason", async () => {
    const { message, text } = await runOne(makeTool("rm"), {}, { beforeToolCall: () => ({ block: true }) });
    expect(message.isError).toBe(true);
    expect(text).toBe("Tool execution was blocked");
  });

  it("lets the call run when beforeToolCall returns nothing", async () => {
    const { message, text } = await runOne(makeTool("ok"), {}, { beforeToolCall: () => undefined });
    expect(message.isError).toBe(false);
    expect(text).toBe("ok done");
  });

  it("turns a throwing beforeToolCall into an error result", async () => {
    const { message, text } = await runOne(
      makeTool("ok"),
      {},
      {
        beforeToolCall: () => {
          throw new Error("policy service down");
        },
      },
    );
    expect(message.isError).toBe(true);
    expect(text).toBe("beforeToolCall hook failed: policy service down");
  });
});

describe("afterToolCall", () => {
  const base = makeTool("base", { execute: () => textResult("original", { details: { a: 1 }, usage }) });

  it("can replace the content", async () => {
    const { text } = await runOne(base, {}, { afterToolCall: () => ({ content: [{ type: "text", text: "rewritten" }] }) });
    expect(text).toBe("rewritten");
  });

  it("can replace the details", async () => {
    const { message, text } = await runOne(base, {}, { afterToolCall: () => ({ details: { b: 2 } }) });
    expect(message.details).toEqual({ b: 2 });
    expect(text).toBe("original");
  });

  it("can replace the usage", async () => {
    const newer: Usage = { inputTokens: 10, outputTokens: 20, totalTokens: 30 };
    const { message } = await runOne(base, {}, { afterToolCall: () => ({ usage: newer }) });
    expect(message.usage).toEqual(newer);
  });

  it("can set terminate", async () => {
    // terminate is not on the result message; a one-call batch terminates exactly when its result does.
    const plain = await runBatch([base], [toolCall("c1", "base")]);
    const hooked = await runBatch([base], [toolCall("c1", "base")], { afterToolCall: () => ({ terminate: true }) });
    expect(plain.batch.terminate).toBe(false);
    expect(hooked.batch.terminate).toBe(true);
  });

  it("can mark a successful result as an error", async () => {
    const { message, text } = await runOne(base, {}, { afterToolCall: () => ({ isError: true }) });
    expect(message.isError).toBe(true);
    expect(text).toBe("original");
  });

  it("sees the executed result and whether it failed", async () => {
    const seen: { text: string; isError: boolean }[] = [];
    const failing = makeTool("failing", {
      execute: () => {
        throw new Error("boom");
      },
    });
    await runOne(
      failing,
      {},
      {
        afterToolCall: ({ result, isError }) => void seen.push({ text: textOf(result), isError }),
      },
    );
    expect(seen).toEqual([{ text: "boom", isError: true }]);
  });

  it("turns a throwing afterToolCall into an error result", async () => {
    const { message, text } = await runOne(
      base,
      {},
      {
        afterToolCall: () => {
          throw new Error("audit log full");
        },
      },
    );
    expect(message.isError).toBe(true);
    expect(text).toBe("afterToolCall hook failed: audit log full");
  });
});

describe("execute", () => {
  it("turns a throwing execute into an error result carrying the message", async () => {
    const tool = makeTool("explode", {
      execute: () => {
        throw new Error("disk on fire");
      },
    });
    const { message, text } = await runOne(tool, {});
    expect(message.isError).toBe(true);
    expect(text).toBe("disk on fire");
  });

  it("turns a rejected promise from execute into an error result", async () => {
    const tool = makeTool("explode", { execute: async () => Promise.reject(new Error("async fire")) });
    const { message, text } = await runOne(tool, {});
    expect(message.isError).toBe(true);
    expect(text).toBe("async fire");
  });

  it("turns a malformed result into an error result", async () => {
    const tool = makeTool("sloppy", { execute: () => ({ content: "not an array" }) as unknown as AgentToolResult });
    const { message, text } = await runOne(tool, {});
    expect(message.isError).toBe(true);
    expect(text).toBe("Tool result has no content array");
  });

  it("turns a non-object result into an error result", async () => {
    const tool = makeTool("sloppy", { execute: () => 42 as unknown as AgentToolResult });
    const { message, text } = await runOne(tool, {});
    expect(message.isError).toBe(true);
    expect(text).toBe("Tool returned number instead of a result object");
  });

  it("passes the run's abort through to the signal execute receives", async () => {
    const controller = new AbortController();
    let received: AbortSignal | undefined;
    const tool = makeTool("waiter", {
      execute: (_id, _args, signal) =>
        new Promise<AgentToolResult>((resolve) => {
          received = signal;
          signal?.addEventListener("abort", () => resolve(textResult("stopped early")));
          setTimeout(() => controller.abort(), 5);
        }),
    });
    const { message, text } = await runOne(tool, {}, {}, controller.signal);
    expect(received).toBeInstanceOf(AbortSignal);
    expect(received?.aborted).toBe(true);
    expect(message.isError).toBe(true);
    expect(text).toBe("Operation aborted");
  });

  it("gives a call that outlives config.toolTimeoutMs an error result, even if the tool ignores its signal", async () => {
    const stubborn: AgentTool = makeTool("stubborn", {
      execute: async () => {
        await sleep(1_000);
        return textResult("too late");
      },
    });
    const started = Date.now();
    const { message, text } = await runOne(stubborn, {}, { toolTimeoutMs: 30 });
    expect(Date.now() - started).toBeLessThan(500);
    expect(message.isError).toBe(true);
    expect(text).toBe('Tool "stubborn" timed out after 30 ms');
  });

  it("passes config.toolContext to execute", async () => {
    let seen: unknown;
    const tool = makeTool("ctx", {
      execute: (_id, _args, _signal, _onPartial, context) => {
        seen = context?.sessionId;
        return textResult("ok");
      },
    });
    await runOne(tool, {}, { toolContext: { sessionId: "s-42", env: {} } });
    expect(seen).toBe("s-42");
  });
});
