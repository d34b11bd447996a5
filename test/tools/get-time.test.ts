import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { getTool } from "../../tools/getTime.ts";
import { executeDirectly, runToolCall, textOf } from "./support.ts";

// Sunday 2026-11-29, 10:31:02 UTC: 19:31:02 in Tokyo (UTC+9), 11:31:02 in Paris (UTC+1).
const NOW = new Date("2026-11-29T10:31:02Z");

describe("getTime", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(NOW);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("is a parallel-safe, idempotent tool labelled Time Lookup", () => {
    expect(getTool()).toMatchObject({ name: "getTime", label: "Time Lookup", parallelToolExecute: true, idempotent: true });
  });

  it("tells the local time of an IANA timezone", async () => {
    const { result } = await executeDirectly(getTool(), { timezone: "Europe/Paris" });
    expect(textOf(result)).toBe("Current time in Europe/Paris: 2026-11-29 11:31:02 (Sunday)");
    expect(result.details).toEqual({ timezone: "Europe/Paris", iso: "2026-11-29T11:31:02+01:00" });
  });

  it("accepts a timezone in any letter case and reports its canonical spelling", async () => {
    const { result } = await executeDirectly(getTool(), { timezone: "asia/tokyo" });
    expect(result.details).toMatchObject({ timezone: "Asia/Tokyo" });
  });

  it("writes a zero offset as +00:00", async () => {
    const { result } = await executeDirectly(getTool(), { timezone: "UTC" });
    expect(result.details).toMatchObject({ iso: "2026-11-29T10:31:02+00:00" });
  });

  it("tells the local time of a known city", async () => {
    const { result } = await executeDirectly(getTool(), { city: "Tokyo" });
    expect(textOf(result)).toBe("Current time in Tokyo (Asia/Tokyo): 2026-11-29 19:31:02 (Sunday)");
    expect(result.details).toEqual({ timezone: "Asia/Tokyo", iso: "2026-11-29T19:31:02+09:00", city: "Tokyo" });
  });

  it("matches city names regardless of case, spacing and accents", async () => {
    const { result: newYork } = await executeDirectly(getTool(), { city: "  new   YORK " });
    const { result: saoPaulo } = await executeDirectly(getTool(), { city: "sao paulo" });
    expect(newYork.details).toMatchObject({ timezone: "America/New_York", city: "New York" });
    expect(saoPaulo.details).toMatchObject({ timezone: "America/Sao_Paulo", city: "São Paulo" });
  });

  it("resolves any city the runtime's IANA zone list is named after, beyond its own table", async () => {
    const { result: lima } = await executeDirectly(getTool(), { city: "Lima" });
    expect(textOf(lima)).toBe("Current time in Lima (America/Lima): 2026-11-29 05:31:02 (Sunday)");
    const { result: hcm } = await executeDirectly(getTool(), { city: "ho chi minh" });
    expect(hcm.details).toMatchObject({ timezone: "Asia/Ho_Chi_Minh", city: "Ho Chi Minh" });
  });

  it("resolves the city of every zone in Intl.supportedValuesOf('timeZone') to a zone of the same name", async () => {
    const unresolved: string[] = [];
    for (const zone of Intl.supportedValuesOf("timeZone").filter((z) => z.includes("/") && !z.startsWith("Etc/"))) {
      const city = zone.split("/").pop()!.replace(/_/g, " ");
      const { result } = await executeDirectly(getTool(), { city });
      const got = String(result.details.timezone);
      if (got.split("/").pop()!.replace(/_/g, " ").toLowerCase() !== city.toLowerCase()) unresolved.push(`${city} → ${got}`);
    }
    expect(unresolved).toEqual([]);
  });

  it("prefers the timezone when both are given, keeping the city as the label", async () => {
    const { result } = await executeDirectly(getTool(), { timezone: "Asia/Tokyo", city: "Kyoto" });
    expect(textOf(result)).toBe("Current time in Kyoto (Asia/Tokyo): 2026-11-29 19:31:02 (Sunday)");
  });

  it("rejects an unknown timezone, naming it and showing the expected form", async () => {
    await expect(executeDirectly(getTool(), { timezone: "Mars/Olympus" })).rejects.toThrow(
      /Unknown timezone "Mars\/Olympus".*"Europe\/Paris"/,
    );
  });

  it("rejects an unknown city, explaining how to pass a timezone instead", async () => {
    await expect(executeDirectly(getTool(), { city: "Atlantis" })).rejects.toThrow(
      /Unknown city "Atlantis"\. Pass its IANA timezone instead, e\.g\. \{"timezone": "Europe\/Paris"\}/,
    );
  });

  it("rejects a call with neither timezone nor city", async () => {
    await expect(executeDirectly(getTool(), {})).rejects.toThrow(/Give either "timezone".*or "city"/);
  });

  it("reaches the model as an error result when the timezone is unknown", async () => {
    const { message } = await runToolCall(getTool(), { timezone: "Nowhere/Land" });
    expect(message.isError).toBe(true);
    expect(textOf(message)).toContain('Unknown timezone "Nowhere/Land"');
  });

  it("reaches the model as a normal result through the core pipeline", async () => {
    const { message } = await runToolCall(getTool(), '{"city":"London"}');
    expect(message.isError).toBe(false);
    expect(textOf(message)).toBe("Current time in London (Europe/London): 2026-11-29 10:31:02 (Sunday)");
  });
});
