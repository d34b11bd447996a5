import { describe, expect, it } from "vitest";
import {
  DEFAULT_SESSION_MAX_BYTES,
  readCompactAt,
  readFlag,
  readList,
  readModelContextWindow,
  readNonNegativeNumber,
  readPositiveInteger,
  readPositiveNumber,
  readSessionMaxBytes,
} from "../../src/env-vars.ts";

describe("reading vars", () => {
  it("reads positive numbers and integers, else the default", () => {
    expect(readPositiveNumber(" 0.5 ", 30)).toBe(0.5);
    for (const raw of [undefined, "", "0", "-1", "1e3", "abc", "3 days"]) expect(readPositiveNumber(raw, 30)).toBe(30);
    expect(readPositiveInteger("3000", 1)).toBe(3000);
    for (const raw of ["1.5", "0", "", "12ms"]) expect(readPositiveInteger(raw, 7)).toBe(7);
  });

  it("reads a delay that may be zero", () => {
    expect(readNonNegativeNumber("0", 30_000)).toBe(0);
    expect(readNonNegativeNumber("20", 30_000)).toBe(20);
    expect(readNonNegativeNumber("soon", 30_000)).toBe(30_000);
  });

  it("reads a flag as on only for true", () => {
    expect(readFlag(" TRUE ")).toBe(true);
    for (const raw of [undefined, "", "1", "yes", "false"]) expect(readFlag(raw)).toBe(false);
  });

  it("reads a comma-separated list, dropping blanks", () => {
    expect(readList(" a, b ,,c ")).toEqual(["a", "b", "c"]);
    expect(readList(undefined)).toEqual([]);
  });

  it("reads the session byte budget", () => {
    expect(readSessionMaxBytes({})).toBe(DEFAULT_SESSION_MAX_BYTES);
    expect(readSessionMaxBytes({ SESSION_MAX_BYTES: "1000000" })).toBe(1_000_000);
  });

  it("reads COMPACT_AT as a share above 0 and at most 1, else the default", () => {
    expect(readCompactAt({}, 0.8)).toBe(0.8);
    expect(readCompactAt({ COMPACT_AT: "0.6" }, 0.8)).toBe(0.6);
    expect(readCompactAt({ COMPACT_AT: "1" }, 0.8)).toBe(1);
    for (const raw of ["0", "1.5", "80%", "-0.5"]) expect(readCompactAt({ COMPACT_AT: raw }, 0.8)).toBe(0.8);
  });

  it("reads a model's own window from MODEL_CONTEXT_WINDOWS", () => {
    const env = { MODEL_CONTEXT_WINDOWS: "@cf/meta/llama-3.1-8b-instruct=8000, gpt-4o-mini = 128000 ,broken=, =5" };
    expect(readModelContextWindow(env, "@cf/meta/llama-3.1-8b-instruct")).toBe(8_000);
    expect(readModelContextWindow(env, "gpt-4o-mini")).toBe(128_000);
    expect(readModelContextWindow(env, "broken")).toBeUndefined();
    expect(readModelContextWindow(env, "other")).toBeUndefined();
    expect(readModelContextWindow({}, "gpt-4o-mini")).toBeUndefined();
  });
});
