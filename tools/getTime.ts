/**
 * getTime: the current local time for an IANA timezone or for a city: a built-in table of major cities
 * (with names no zone carries, e.g. Beijing), then every city the runtime's IANA zone list names
 * (Intl.supportedValuesOf("timeZone"): "Lima" → America/Lima).
 * Loaded through the generated registry; the model calls it with `{timezone?, city?}`.
 * Failures (neither argument, an unknown zone, an unknown city) throw an Error whose message tells the
 * model how to repair the call; the core pipeline turns the throw into an error result.
 */
import * as z from "zod";
import { defineTool } from "../src/tools/define-tool.ts";
import type { AgentTool } from "../src/core/index.ts";

/** Major cities → their IANA zone; keys are display names, looked up case- and accent-insensitively. */
const CITY_TIMEZONES: Readonly<Record<string, string>> = {
  Amsterdam: "Europe/Amsterdam",
  Auckland: "Pacific/Auckland",
  Bangkok: "Asia/Bangkok",
  Beijing: "Asia/Shanghai",
  Berlin: "Europe/Berlin",
  "Buenos Aires": "America/Argentina/Buenos_Aires",
  Cairo: "Africa/Cairo",
  Chicago: "America/Chicago",
  Delhi: "Asia/Kolkata",
  Dubai: "Asia/Dubai",
  "Hong Kong": "Asia/Hong_Kong",
  Honolulu: "Pacific/Honolulu",
  Istanbul: "Europe/Istanbul",
  Jakarta: "Asia/Jakarta",
  Johannesburg: "Africa/Johannesburg",
  Lagos: "Africa/Lagos",
  London: "Europe/London",
  "Los Angeles": "America/Los_Angeles",
  Madrid: "Europe/Madrid",
  Melbourne: "Australia/Melbourne",
  "Mexico City": "America/Mexico_City",
  Moscow: "Europe/Moscow",
  Mumbai: "Asia/Kolkata",
  Nairobi: "Africa/Nairobi",
  "New Delhi": "Asia/Kolkata",
  "New York": "America/New_York",
  Paris: "Europe/Paris",
  Rome: "Europe/Rome",
  "San Francisco": "America/Los_Angeles",
  "São Paulo": "America/Sao_Paulo",
  Seoul: "Asia/Seoul",
  Shanghai: "Asia/Shanghai",
  Singapore: "Asia/Singapore",
  Sydney: "Australia/Sydney",
  Tokyo: "Asia/Tokyo",
  Toronto: "America/Toronto",
  Vancouver: "America/Vancouver",
};

/** "  são   PAULO " → "sao paulo", so the model's spelling variations still match. */
function normalizeCity(city: string): string {
  return city.normalize("NFD").replace(/\p{M}/gu, "").trim().replace(/\s+/g, " ").toLowerCase();
}

type City = { name: string; timezone: string };
// Both indexes are built on the first city asked for, not at start-up, which every isolate pays.
let majorCities: Map<string, City> | undefined;
let zoneCities: Map<string, City> | undefined;

function majorCityIndex(): Map<string, City> {
  majorCities ??= new Map(Object.entries(CITY_TIMEZONES).map(([name, timezone]) => [normalizeCity(name), { name, timezone }]));
  return majorCities;
}

/** The city each IANA zone is named after ("America/Argentina/Buenos_Aires" → "Buenos Aires"); built once. */
function zoneCityIndex(): Map<string, City> {
  if (zoneCities) return zoneCities;
  zoneCities = new Map();
  for (const timezone of Intl.supportedValuesOf("timeZone")) {
    const name = timezone.split("/").pop()!.replace(/_/g, " ");
    // "Etc/GMT+5", "UTC": not a city.
    if (!timezone.includes("/") || timezone.startsWith("Etc/")) continue;
    const key = normalizeCity(name);
    if (!zoneCities.has(key)) zoneCities.set(key, { name, timezone });
  }
  return zoneCities;
}

/**
 * A city the zone list knows only under a newer name than the runtime's ICU data ("Ho Chi Minh": ICU
 * lists Asia/Saigon, but accepts Asia/Ho_Chi_Minh as an alias): tried under each region of the list.
 */
function findZoneAlias(key: string): City | undefined {
  const name = key.replace(/(^|\s)\p{L}/gu, (c) => c.toUpperCase());
  const regions = new Set(
    Intl.supportedValuesOf("timeZone")
      .filter((z) => z.includes("/"))
      .map((z) => z.split("/")[0]!),
  );
  for (const region of regions) {
    const timezone = `${region}/${name.replace(/ /g, "_")}`;
    if (resolveTimezone(timezone)) return { name, timezone };
  }
  return undefined;
}

function findCity(city: string): City | undefined {
  const key = normalizeCity(city);
  return majorCityIndex().get(key) ?? zoneCityIndex().get(key) ?? (/^[\p{L} ]+$/u.test(key) ? findZoneAlias(key) : undefined);
}

/** The canonical spelling of an IANA zone ("asia/tokyo" → "Asia/Tokyo"), or undefined when unknown. */
function resolveTimezone(timezone: string): string | undefined {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: timezone.trim() }).resolvedOptions().timeZone;
  } catch {
    return undefined; // RangeError: not a zone this runtime knows
  }
}

/** Wall-clock parts of `now` in `timeZone`: "2026-11-29 19:31:02", the weekday and an ISO string with offset. */
function formatLocalTime(now: Date, timeZone: string): { local: string; weekday: string; iso: string } {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
    weekday: "long",
    timeZoneName: "longOffset",
  }).formatToParts(now);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? "";
  const date = `${part("year")}-${part("month")}-${part("day")}`;
  const time = `${part("hour")}:${part("minute")}:${part("second")}`;
  // longOffset reads "GMT+09:00", or plain "GMT" at offset zero.
  const offset = part("timeZoneName").replace(/^GMT/, "") || "+00:00";
  return { local: `${date} ${time}`, weekday: part("weekday"), iso: `${date}T${time}${offset}` };
}

/** Built by getTool(), when a session loads its tools, rather than at module load (start-up CPU). */
const schema = () =>
  z.object({
    timezone: z.string().optional().describe('IANA timezone name, e.g. "Europe/Paris" or "Asia/Tokyo". Takes precedence over city.'),
    city: z.string().optional().describe('A city, e.g. "Tokyo", "New York" or "Lima".'),
  });

export function getTool(): AgentTool {
  return defineTool({
    name: "getTime",
    label: "Time Lookup",
    description: "Get the current local date, time and weekday for an IANA timezone (e.g. Europe/Paris) or a city. Give timezone or city.",
    schema: schema(),
    parallelToolExecute: true,
    idempotent: true,
    execute(_toolCallId, { timezone, city }) {
      let zone: string;
      let place: string | undefined;
      if (timezone !== undefined && timezone.trim() !== "") {
        const resolved = resolveTimezone(timezone);
        if (!resolved) {
          throw new Error(`Unknown timezone "${timezone}". Use an IANA timezone name such as "Europe/Paris" or "America/New_York".`);
        }
        zone = resolved;
        place = city?.trim() || undefined;
      } else if (city !== undefined && city.trim() !== "") {
        const known = findCity(city);
        if (!known) {
          throw new Error(
            `Unknown city "${city}". Pass its IANA timezone instead, e.g. {"timezone": "Europe/Paris"} for a city in France. ` +
              `I know every city an IANA zone is named after (e.g. Lima, Kathmandu), and: ${Object.keys(CITY_TIMEZONES).join(", ")}.`,
          );
        }
        zone = known.timezone;
        place = known.name;
      } else {
        throw new Error('Give either "timezone" (an IANA name such as "Europe/Paris") or "city" (such as "Tokyo").');
      }

      const { local, weekday, iso } = formatLocalTime(new Date(), zone);
      const where = place ? `${place} (${zone})` : zone;
      return {
        content: [{ type: "text", text: `Current time in ${where}: ${local} (${weekday})` }],
        details: place ? { timezone: zone, iso, city: place } : { timezone: zone, iso },
        terminate: false,
      };
    },
  });
}
