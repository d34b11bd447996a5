/**
 * getWeather: current weather for a city through an Open-Meteo-style API (geocoding, then forecast).
 * Loaded through the generated registry; base URLs come from the two env keys it declares
 * (WEATHER_API_BASE_URL, GEOCODING_API_BASE_URL; Open-Meteo's by default, src/config.ts) so tests and
 * deployers can point it elsewhere.
 * Reports {stage:"geocoding"} then {stage:"forecast"} as partial results. Every failure throws an Error
 * with a readable message (the core pipeline turns it into an error result); the signal reaches fetch.
 */
import * as z from "zod";
import { readSetting } from "../src/config.ts";
import { isPlainObject } from "../src/core/index.ts";
import { defineTool } from "../src/tools/define-tool.ts";
import type { AgentTool } from "../src/core/index.ts";

// Two requests to a public API; past this the model is better served by an error than by waiting.
const WEATHER_TIMEOUT_MS = 20_000;

/** WMO weather interpretation codes, as Open-Meteo reports them. */
const WEATHER_CODES: Readonly<Record<number, string>> = {
  0: "Clear sky",
  1: "Mainly clear",
  2: "Partly cloudy",
  3: "Overcast",
  45: "Fog",
  48: "Depositing rime fog",
  51: "Light drizzle",
  53: "Moderate drizzle",
  55: "Dense drizzle",
  56: "Light freezing drizzle",
  57: "Dense freezing drizzle",
  61: "Slight rain",
  63: "Moderate rain",
  65: "Heavy rain",
  66: "Light freezing rain",
  67: "Heavy freezing rain",
  71: "Slight snowfall",
  73: "Moderate snowfall",
  75: "Heavy snowfall",
  77: "Snow grains",
  80: "Slight rain showers",
  81: "Moderate rain showers",
  82: "Violent rain showers",
  85: "Slight snow showers",
  86: "Heavy snow showers",
  95: "Thunderstorm",
  96: "Thunderstorm with slight hail",
  99: "Thunderstorm with heavy hail",
};

export function describeWeatherCode(code: number): string {
  return WEATHER_CODES[code] ?? `Unknown conditions (code ${code})`;
}

type Location = { name: string; country?: string; latitude: number; longitude: number; timezone?: string };

function buildUrl(base: string, pathname: string, params: Record<string, string>): URL {
  const url = new URL(pathname, base.endsWith("/") ? base : `${base}/`);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url;
}

/** GET a JSON document; `service` names the step in every error message. */
async function fetchJson(url: URL, service: string, signal: AbortSignal | undefined): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { signal, headers: { accept: "application/json" } });
  } catch (err) {
    if (signal?.aborted) throw err; // an abort is not the service's fault; let it propagate as is
    throw new Error(`Could not reach the ${service} service: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`The ${service} service answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`);
  }
  try {
    return await response.json();
  } catch {
    if (signal?.aborted) throw signal.reason;
    throw new Error(`The ${service} service returned a response that is not valid JSON`);
  }
}

const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const optionalString = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

function readLocation(body: unknown, city: string): Location {
  const first = isPlainObject(body) && Array.isArray(body.results) ? body.results[0] : undefined;
  if (first === undefined) throw new Error(`City "${city}" not found. Check the spelling or try a nearby larger city.`);
  if (!isPlainObject(first) || !isNumber(first.latitude) || !isNumber(first.longitude)) {
    throw new Error("The geocoding service returned a result without coordinates");
  }
  return {
    name: optionalString(first.name) ?? city,
    country: optionalString(first.country),
    latitude: first.latitude,
    longitude: first.longitude,
    timezone: optionalString(first.timezone),
  };
}

function readCurrent(body: unknown): { temperature: number; windSpeed: number; weatherCode: number; units: Record<string, unknown> } {
  const current = isPlainObject(body) ? body.current : undefined;
  if (
    !isPlainObject(current) ||
    !isNumber(current.temperature_2m) ||
    !isNumber(current.wind_speed_10m) ||
    !isNumber(current.weather_code)
  ) {
    throw new Error("The weather service returned no current temperature, wind speed and weather code");
  }
  return {
    temperature: current.temperature_2m,
    windSpeed: current.wind_speed_10m,
    weatherCode: current.weather_code,
    units: isPlainObject(body) && isPlainObject(body.current_units) ? body.current_units : {},
  };
}

/** Built by getTool(), when a session loads its tools, rather than at module load (start-up CPU). */
const schema = () =>
  z.object({
    city: z.string().min(1).describe('City name, e.g. "Tokyo" or "San Francisco".'),
    units: z.enum(["celsius", "fahrenheit"]).optional().describe('Temperature unit; "celsius" when omitted.'),
  });

export function getTool(): AgentTool {
  return defineTool({
    name: "getWeather",
    label: "Weather Lookup",
    description: "Fetch the current weather (conditions, temperature, wind) for a city. Optional units: celsius (default) or fahrenheit.",
    schema: schema(),
    parallelToolExecute: true,
    idempotent: true, // read-only lookups: running one again after a restart is harmless
    timeoutMs: WEATHER_TIMEOUT_MS,
    // The only part of the Worker's env this tool sees (src/tools/tool-context.ts).
    env: ["WEATHER_API_BASE_URL", "GEOCODING_API_BASE_URL"],
    async execute(_toolCallId, { city, units = "celsius" }, signal, onPartialResult, context) {
      const geocodingBase = readSetting(context?.env ?? {}, "GEOCODING_API_BASE_URL");
      const weatherBase = readSetting(context?.env ?? {}, "WEATHER_API_BASE_URL");

      onPartialResult({ stage: "geocoding", city });
      const geocoding = await fetchJson(buildUrl(geocodingBase, "v1/search", { name: city, count: "1" }), "geocoding", signal);
      const location = readLocation(geocoding, city);

      onPartialResult({ stage: "forecast", location });
      const forecastUrl = buildUrl(weatherBase, "v1/forecast", {
        latitude: String(location.latitude),
        longitude: String(location.longitude),
        current: "temperature_2m,wind_speed_10m,weather_code",
        temperature_unit: units,
      });
      const current = readCurrent(await fetchJson(forecastUrl, "weather", signal));

      const temperatureUnit = optionalString(current.units.temperature_2m) ?? (units === "fahrenheit" ? "°F" : "°C");
      const windSpeedUnit = optionalString(current.units.wind_speed_10m) ?? "km/h";
      const conditions = describeWeatherCode(current.weatherCode);
      const place = location.country ? `${location.name}, ${location.country}` : location.name;
      const text = `Weather in ${place}: ${conditions}, ${current.temperature}${temperatureUnit}, wind ${current.windSpeed} ${windSpeedUnit}`;
      return {
        content: [{ type: "text", text }],
        details: {
          location,
          conditions,
          weatherCode: current.weatherCode,
          temperature: current.temperature,
          temperatureUnit,
          windSpeed: current.windSpeed,
          windSpeedUnit,
          units,
        },
        terminate: false,
      };
    },
  });
}
