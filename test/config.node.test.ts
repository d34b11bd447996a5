/**
 * The Worker's settings (src/config.ts): how each one's text is read, and that a blank or malformed
 * value gives its default, named here as a literal so a changed default is a visible change. Then the
 * places a deployer reads them: one README configuration row per setting, in the module's order, with its
 * default; a line in wrangler.toml's [vars] or in .dev.vars.example, as its kind says.
 */
import { readdirSync, readFileSync } from "node:fs";
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
  MODEL_FALLBACKS: { default: [], valid: [[" m1, workers-ai:@cf/x ,", ["m1", "workers-ai:@cf/x"]]], malformed: [" , "] },
  LOCAL_DEV: { default: false, valid: [["true", true]], malformed: ["TRUE ", " true", "1", "yes", "false"] },
  API_TOKEN: { default: "", valid: [[" t0ken ", "t0ken"]], malformed: [] },
  // Its length is checked by src/signing/signing-secret.ts, which names the problem.
  SIGNING_SECRET: { default: "", valid: [[" 0123456789abcdef0123456789abcdef ", "0123456789abcdef0123456789abcdef"]], malformed: [] },
  LEGACY_SESSION_IDS_UNTIL: {
    default: undefined,
    valid: [
      ["2027-01-31", Date.UTC(2027, 0, 31)],
      [" 2027-01-31T12:00:00Z ", Date.UTC(2027, 0, 31, 12)],
    ],
    malformed: ["soon", "2027-13-45"],
  },
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
  CODE_MODE: { default: false, valid: [["true", true]], malformed: ["TRUE", " true ", "1", "false"] },
  REDEPLOY_HOOK_URL: { default: "", valid: [[" https://hook.example/x ", "https://hook.example/x"]], malformed: [] },
  // A bearer secret is sent as given: only blank text is unset.
  REDEPLOY_HOOK_SECRET: { default: "", valid: [[" s ", " s "]], malformed: [] },
  APPROVAL_TIMEOUT_MS: { default: 600_000, valid: [["3000", 3000]], malformed: ["0", "-5", "1.5", "1e3", "12ms"] },
  WEATHER_API_BASE_URL: { default: "https://api.open-meteo.com", valid: [["http://127.0.0.1:9/", "http://127.0.0.1:9/"]], malformed: [] },
  GEOCODING_API_BASE_URL: { default: "https://geocoding-api.open-meteo.com", valid: [["http://g", "http://g"]], malformed: [] },
  MAX_CONTEXT_TOKENS: { default: 64_000, valid: [["4000", 4000]], malformed: ["0", "64k", "6.4e4", "1.5"] },
  COMPACT_AT: {
    default: 0.8,
    valid: [
      [" 0.6 ", 0.6],
      ["1", 1],
    ],
    malformed: ["0", "1.5", "80%", "-0.5", "8e-1"],
  },
  MODEL_CONTEXT_WINDOWS: {
    default: {},
    valid: [
      [
        "@cf/meta/llama-3.1-8b-instruct=8000, gpt-4o-mini = 128000 ,broken=",
        { "@cf/meta/llama-3.1-8b-instruct": 8000, "gpt-4o-mini": 128000 },
      ],
    ],
    malformed: ["broken=", "=5", "gpt-4o=0", "gpt-4o"],
  },
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
  SESSION_TOKEN_BUDGET: { default: undefined, valid: [[" 500000 ", 500_000]], malformed: ["0", "-5", "1e6", "10k"] },
  USER_DAILY_TOKEN_BUDGET: { default: undefined, valid: [["2000000", 2_000_000]], malformed: ["0", "1.5", "lots"] },
  OTEL_EXPORTER_OTLP_ENDPOINT: { default: "", valid: [[" http://c:4318 ", "http://c:4318"]], malformed: [] },
  OTEL_EXPORTER_OTLP_HEADERS: { default: "", valid: [["a=b", "a=b"]], malformed: [] },
  AUTH_JWKS_URL: { default: "", valid: [[" https://id.example/jwks.json ", "https://id.example/jwks.json"]], malformed: [] },
  AUTH_ISSUER: { default: "", valid: [["https://id.example/", "https://id.example/"]], malformed: [] },
  AUTH_AUDIENCE: { default: "", valid: [[" api ", "api"]], malformed: [] },
  MAX_MEMORIES: { default: 1000, valid: [[" 50 ", 50]], malformed: ["0", "-1", "1e3", "many"] },
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

const file = (name: string) => readFileSync(new URL(`../${name}`, import.meta.url), "utf8");

/** The README's configuration table: each row's setting names (in backticks, first cell) and default cell. */
function readmeRows(): { names: string[]; defaultCell: string }[] {
  const section = file("README.md").split("\n## Configuration\n")[1]!.split("\n## ")[0]!;
  return section
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => {
      const cells = line.split(" | ");
      return { names: [...cells[0]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!), defaultCell: cells.at(-1)!.replace(/ \|$/, "") };
    });
}

/** The names wrangler.toml's [vars] table sets (`live`) and shows commented out (`commented`, with their text). */
function wranglerVars(): { live: string[]; commented: Map<string, string> } {
  const toml = file("wrangler.toml");
  const table = toml.slice(toml.indexOf("\n[vars]\n")).split(/\n\[(?!vars\])/)[0]!;
  const live: string[] = [];
  const commented = new Map<string, string>();
  for (const line of table.split("\n")) {
    const match = /^(#\s*)?([A-Z][A-Z0-9_]+)\s*=\s*(?:"([^"]*)"|'([^']*)')\s*$/.exec(line);
    if (!match) continue;
    if (match[1]) commented.set(match[2]!, match[3] ?? match[4]!);
    else live.push(match[2]!);
  }
  return { live, commented };
}

const devVarsExample = () => [...file(".dev.vars.example").matchAll(/^([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]!);

describe("where a deployer finds the settings", () => {
  it("the README's configuration table has one row per setting, in the module's order", () => {
    const rows = readmeRows();
    expect(rows.filter((r) => r.names.length !== 1).map((r) => r.names)).toEqual([]);
    expect(rows.map((r) => r.names[0])).toEqual(NAMES);
  });

  it("the README's table gives each setting's default", () => {
    const wrong = readmeRows().flatMap(({ names: [name], defaultCell }) => {
      const value: unknown = SETTINGS[name as SettingName].default;
      if (typeof value === "boolean") {
        // A flag off by default may say it is unset.
        return defaultCell.includes(`"${value}"`) || (!value && defaultCell.startsWith("unset")) ? [] : [`${name}: ${defaultCell}`];
      }
      if ((typeof value === "number" || typeof value === "string") && value !== "")
        return defaultCell.includes(String(value)) ? [] : [`${name}: ${defaultCell} (default ${value})`];
      return [];
    });
    expect(wrong).toEqual([]);
  });

  it("each setting has its line where its kind says: wrangler.toml's [vars] for a var, .dev.vars.example for a secret", () => {
    const { live, commented } = wranglerVars();
    const inToml = (name: string) => live.includes(name) || commented.has(name);
    const secrets = devVarsExample();
    const misplaced = NAMES.filter((name) => {
      switch (SETTINGS[name].kind) {
        case "var":
          return !inToml(name) || secrets.includes(name);
        case "secret":
          // A secret never also has a var line: the deployed Worker would have the name twice.
          return !secrets.includes(name) || inToml(name);
        case "var or secret":
          return !inToml(name) && !secrets.includes(name);
        case "local":
          return inToml(name) || secrets.includes(name);
        default:
          return true;
      }
    });
    expect(misplaced).toEqual([]);
    // Nothing else is set there: each name the files give is a setting the Worker reads.
    expect([...live, ...commented.keys(), ...secrets].filter((name) => !NAMES.includes(name as SettingName))).toEqual([]);
  });

  it("a commented-out line in wrangler.toml shows the default, where there is one", () => {
    const { commented } = wranglerVars();
    const differing = [...commented].filter(([name, text]) => {
      const fallback: unknown = SETTINGS[name as SettingName].default;
      // Unset by default: no value, an empty text, list or map (its commented line may show an example).
      const unsetByDefault =
        fallback === undefined ||
        fallback === "" ||
        (typeof fallback === "object" && fallback !== null && Object.keys(fallback).length === 0);
      return !unsetByDefault && read(name as SettingName, text) !== fallback;
    });
    expect(differing).toEqual([]);
  });

  it("LOCAL_DEV is passed only by npm start and the dev scripts", () => {
    const scripts = (JSON.parse(file("package.json")) as { scripts: Record<string, string> }).scripts;
    expect(Object.keys(scripts).filter((name) => scripts[name]!.includes("LOCAL_DEV"))).toEqual(["start", "dev", "dev:remote"]);
    for (const name of ["start", "dev", "dev:remote"]) expect(scripts[name]).toContain("--var LOCAL_DEV:true");
  });
});

describe("who reads a setting", () => {
  /** Every .ts file under src/ but the configuration module, with its text. */
  const sources = readdirSync(new URL("../src", import.meta.url), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts") && name !== "config.ts")
    .map((name) => ({ file: `src/${name}`, text: file(`src/${name}`) }));

  it('no module but src/config.ts takes a setting\'s text from the environment (env.NAME, env["NAME"], { NAME } = env)', () => {
    const reads = sources.flatMap(({ file: path, text }) =>
      NAMES.flatMap((name) =>
        [
          ...text.matchAll(
            new RegExp(`\\.${name}\\b|[\\w\\])]\\[["'\`]${name}["'\`]\\]|\\{[^{}]*\\b${name}\\b[^{}]*\\}\\s*=(?![=>])`, "g"),
          ),
        ].map((m) => `${path}:${text.slice(0, m.index).split("\n").length}: ${m[0]}`),
      ),
    );
    expect(sources.length).toBeGreaterThan(100);
    expect(reads).toEqual([]);
  });
});
