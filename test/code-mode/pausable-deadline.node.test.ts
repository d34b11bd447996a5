import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { pausableDeadline } from "../../src/code-mode/pausable-deadline.ts";

describe("runCode's deadline", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("does not count the time a nested call waits for a person", async () => {
    let listener!: (waiting: boolean) => void;
    const deadline = pausableDeadline(1_000, (l) => {
      listener = l;
    });
    let expired = false;
    void deadline.expired.then(() => {
      expired = true;
    });
    await vi.advanceTimersByTimeAsync(600);
    listener(true); // a person is asked
    await vi.advanceTimersByTimeAsync(10_000);
    expect(expired).toBe(false);
    listener(false); // and answers: 400 ms of the program's own time are left
    await vi.advanceTimersByTimeAsync(399);
    expect(expired).toBe(false);
    await vi.advanceTimersByTimeAsync(2);
    expect(expired).toBe(true);
  });

  it("stays paused while any of several waits is open, and never fires once cleared", async () => {
    let listener!: (waiting: boolean) => void;
    const deadline = pausableDeadline(100, (l) => {
      listener = l;
    });
    let expired = false;
    void deadline.expired.then(() => {
      expired = true;
    });
    listener(true);
    listener(true);
    listener(false);
    await vi.advanceTimersByTimeAsync(500);
    expect(expired).toBe(false);
    deadline.clear();
    listener(false);
    await vi.advanceTimersByTimeAsync(500);
    expect(expired).toBe(false);
  });
});
