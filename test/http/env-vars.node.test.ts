import { describe, expect, it } from "vitest";
import {
  DEFAULT_SESSION_MAX_BYTES,
  readFlag,
  readList,
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
});
