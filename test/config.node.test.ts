/**
 * The Worker's settings (src/config.ts): how each one's text is read, and that a blank or malformed
 * value gives its default, named here as a literal so a changed default is a visible change.
 */
import { describe, expect, it } from "vitest";
import { readSessionMaxBytes, readSetting, SETTINGS, sessionIdleTtlMs, type SettingName } from "../src/config.ts";

type Case = { default: unknown; valid: [string, unknown][]; malformed: string[] };

/** Every setting: its default, text it reads (and as what), and text that falls back to the default. */
const CASES: Record<SettingName, Case> = {
  MODEL_PROVIDER: { default: "", valid: [[" Workers-AI ", "Workers-AI"]], malformed: [] },
  OPENAI_API_KEY: { default: "", valid: [[" sk-1 ", "sk-1"]], malformed: [] },
  OPENAI_BASE_URL: { default: "", valid: [["http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v1"]], malformed: [] },
  OPENAI_MODEL: { default: "gpt-4o-mini", valid: [["llama3.2", "llama3.2"]], malformed: [] },
  WORKERS_AI_MODEL: { default: "@cf/meta/llama-3.3-70b-instruct-fp8-fast", valid: [["@cf/x", "@cf/x"]], malformed: [] },
  MODELS: { default: [], valid: [[" a, b ,,c ", ["a", "b", "c"]]], malformed: [" , "] },
  LLM_STREAM: {
    default: true,
    valid: [
      ["false", false],
      [" FALSE ", false],
      ["true", true],
    ],
    malformed: ["no", "0", "off"],
  },
  MAX_RETRY_DELAY_MS: {
    default: 30_000,
    valid: [
      ["0", 0],
      [" 2500 ", 2500],
    ],
    malformed: ["-1", "5s", "abc", "1e3", "Infinity", "0x10"],
  },
  LOCAL_DEV: { default: false, valid: [["true", true]], malformed: ["TRUE ", " true", "1", "yes", "false"] },
  API_TOKEN: { default: "", valid: [[" t0ken ", "t0ken"]], malformed: [] },
  ALLOW_ANONYMOUS_SESSIONS: {
    default: false,
    valid: [
      [" TRUE ", true],
      ["false", false],
    ],
    malformed: ["1", "yes"],
  },
  CORS_ORIGINS: { default: [], valid: [["https://a.example, *", ["https://a.example", "*"]]], malformed: [","] },
  WRITE_TOOL_ENABLED: { default: false, valid: [["true", true]], malformed: ["TRUE", " true ", "1", "false"] },
  REDEPLOY_HOOK_URL: { default: "", valid: [[" https://hook.example/x ", "https://hook.example/x"]], malformed: [] },
  // A bearer secret is sent as given: only blank text is unset.
  REDEPLOY_HOOK_SECRET: { default: "", valid: [[" s ", " s "]], malformed: [] },
  APPROVAL_TIMEOUT_MS: { default: 600_000, valid: [["3000", 3000]], malformed: ["0", "-5", "1.5", "1e3", "12ms"] },
  WEATHER_API_BASE_URL: { default: "https://api.open-meteo.com", valid: [["http://127.0.0.1:9/", "http://127.0.0.1:9/"]], malformed: [] },
  GEOCODING_API_BASE_URL: { default: "https://geocoding-api.open-meteo.com", valid: [["http://g", "http://g"]], malformed: [] },
  MAX_CONTEXT_TOKENS: { default: 64_000, valid: [["4000", 4000]], malformed: ["0", "64k", "6.4e4", "1.5"] },
  // JSON is checked by src/mcp/servers-config.ts, which names the problem: here it is text, kept as given.
  MCP_SERVERS: { default: "", valid: [[' [{"name":"a"}]', ' [{"name":"a"}]']], malformed: [] },
  MCP_ALLOWED_URLS: {
    default: [],
    valid: [["https://a.example/, https://b.example/", ["https://a.example/", "https://b.example/"]]],
    malformed: [],
  },
  SESSION_IDLE_TTL_DAYS: {
    default: 30,
    valid: [
      [" 0.5 ", 0.5],
      ["7", 7],
    ],
    malformed: ["0", "-1", "1e3", "abc", "3 days", "Infinity", ".5"],
  },
  SESSION_MAX_BYTES: { default: 200_000_000, valid: [["1000000", 1_000_000]], malformed: ["0", "1.5", "2e8", "200 MB"] },
  MAX_SUBAGENT_DEPTH: {
    default: 2,
    valid: [
      [" 3 ", 3],
      ["0", 0],
    ],
    malformed: ["-1", "1.5", "two", "9999"],
  },
  MAX_SCHEDULES: { default: 100, valid: [[" 7 ", 7]], malformed: ["0", "-5", "1.5", "ten"] },
  SCHEDULE_MIN_INTERVAL_MS: { default: 60_000, valid: [["1000", 1000]], malformed: ["0", "1e3", "1m"] },
  OTEL_EXPORTER_OTLP_ENDPOINT: { default: "", valid: [[" http://c:4318 ", "http://c:4318"]], malformed: [] },
  OTEL_EXPORTER_OTLP_HEADERS: { default: "", valid: [["a=b", "a=b"]], malformed: [] },
};

const NAMES = Object.keys(SETTINGS) as SettingName[];
const read = (name: SettingName, raw: unknown) => readSetting({ [name]: raw } as Record<SettingName, unknown>, name);

describe("reading a setting", () => {
  it.each(NAMES)("%s: its default when unset, blank or not a string", (name) => {
    expect(SETTINGS[name].default).toEqual(CASES[name].default);
    for (const raw of [undefined, "", "   ", 30, { binding: true }]) expect(read(name, raw)).toEqual(CASES[name].default);
  });

  it.each(NAMES)("%s: reads what it should, and malformed text gives the default", (name) => {
    for (const [raw, value] of CASES[name].valid) expect(read(name, raw), JSON.stringify(raw)).toEqual(value);
    for (const raw of CASES[name].malformed) expect(read(name, raw), JSON.stringify(raw)).toEqual(CASES[name].default);
  });

  it("takes no number of days in exponent form: SESSION_IDLE_TTL_DAYS of 1e3 is the default, 30 days", () => {
    expect(sessionIdleTtlMs({ SESSION_IDLE_TTL_DAYS: "1e3" })).toBe(30 * 86_400_000);
    expect(sessionIdleTtlMs({ SESSION_IDLE_TTL_DAYS: "0.5" })).toBe(43_200_000);
    expect(sessionIdleTtlMs({})).toBe(30 * 86_400_000);
  });

  it("reads the session byte budget, 200000000 unless set", () => {
    expect(readSessionMaxBytes({})).toBe(200_000_000);
    expect(readSessionMaxBytes({ SESSION_MAX_BYTES: "1000000" })).toBe(1_000_000);
  });

  it("never hands out a default list a caller could change for everyone", () => {
    expect(Object.isFrozen(readSetting({}, "MODELS"))).toBe(true);
  });
});
