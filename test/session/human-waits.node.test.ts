import { describe, expect, it, vi } from "vitest";
import { HumanWaits, type WaitEnd } from "../../src/session/human/human-waits.ts";

const closedBy = (end: WaitEnd) => `closed by ${end}`;

describe("HumanWaits", () => {
  it("settles a wait with the answer given, once", async () => {
    const waits = new HumanWaits<string>();
    const answer = waits.wait("q1", Date.now() + 60_000, undefined, closedBy);
    expect(waits.isWaiting("q1")).toBe(true);
    expect(waits.settle("q1", "yes")).toBe(true);
    await expect(answer).resolves.toBe("yes");
    expect(waits.isWaiting("q1")).toBe(false);
    expect(waits.settle("q1", "again")).toBe(false);
  });

  it("closes a wait when its deadline passes", async () => {
    vi.useFakeTimers();
    try {
      const waits = new HumanWaits<string>();
      const answer = waits.wait("q2", Date.now() + 1_000, undefined, closedBy);
      await vi.advanceTimersByTimeAsync(1_000);
      await expect(answer).resolves.toBe("closed by timeout");
      expect(waits.isWaiting("q2")).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it("closes a wait when its signal aborts, and at once when it had aborted already", async () => {
    const waits = new HumanWaits<string>();
    const controller = new AbortController();
    const answer = waits.wait("q3", Date.now() + 60_000, controller.signal, closedBy);
    controller.abort();
    await expect(answer).resolves.toBe("closed by abort");
    await expect(waits.wait("q4", Date.now() + 60_000, controller.signal, closedBy)).resolves.toBe("closed by abort");
    expect(waits.isWaiting("q4")).toBe(false);
  });
});
