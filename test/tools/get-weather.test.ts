import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getTool } from "../../tools/getWeather.ts";
import { executeDirectly, runToolCall, textOf } from "./support.ts";

/**
 * A local stand-in for Open-Meteo. Geocoding answers by city name: "Tokyo" is found, "Nowhere" is not,
 * "Broken" is an HTTP 500, "Garbage" is not JSON, "Slow" never answers (until the client goes away).
 */
type Recorded = { path: string; query: URLSearchParams };

let server: Server;
let baseUrl: string;
let requests: Recorded[] = [];
let slowRequestArrived: Promise<IncomingMessage>;
let onSlowRequest: (req: IncomingMessage) => void;

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? "/", "http://localhost");
  requests.push({ path: url.pathname, query: url.searchParams });
  if (url.pathname === "/v1/search") {
    const name = url.searchParams.get("name");
    if (name === "Tokyo") {
      sendJson(res, 200, {
        results: [{ name: "Tokyo", latitude: 35.6895, longitude: 139.69171, country: "Japan", timezone: "Asia/Tokyo" }],
      });
    } else if (name === "Broken") {
      sendJson(res, 500, { error: true, reason: "internal" });
    } else if (name === "Garbage") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("<html>not json</html>");
    } else if (name === "Slow") {
      onSlowRequest(req); // never answered: only the client's abort ends it
    } else {
      sendJson(res, 200, { generationtime_ms: 0.1 }); // Open-Meteo omits `results` when nothing matches
    }
    return;
  }
  if (url.pathname === "/v1/forecast") {
    const fahrenheit = url.searchParams.get("temperature_unit") === "fahrenheit";
    sendJson(res, 200, {
      current_units: { temperature_2m: fahrenheit ? "°F" : "°C", wind_speed_10m: "km/h", weather_code: "wmo code" },
      current: { temperature_2m: fahrenheit ? 72.3 : 22.4, wind_speed_10m: 11.2, weather_code: 2 },
    });
    return;
  }
  sendJson(res, 404, { error: "no route" });
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  requests = [];
  slowRequestArrived = new Promise((resolve) => {
    onSlowRequest = resolve;
  });
});

const context = () => ({ env: { WEATHER_API_BASE_URL: baseUrl, GEOCODING_API_BASE_URL: baseUrl } });

describe("getWeather", () => {
  it("is a parallel-safe tool labelled Weather Lookup", () => {
    expect(getTool()).toMatchObject({ name: "getWeather", label: "Weather Lookup", parallelToolExecute: true });
  });

  it("reports conditions, temperature and wind for a city", async () => {
    const { result } = await executeDirectly(getTool(), { city: "Tokyo" }, { context: context() });
    expect(textOf(result)).toBe("Weather in Tokyo, Japan: Partly cloudy, 22.4°C, wind 11.2 km/h");
    expect(result.details).toMatchObject({ conditions: "Partly cloudy", weatherCode: 2, temperature: 22.4, units: "celsius" });
  });

  it("asks the forecast for the geocoded coordinates, the current fields and the unit", async () => {
    await executeDirectly(getTool(), { city: "Tokyo", units: "fahrenheit" }, { context: context() });
    expect(requests.map((r) => r.path)).toEqual(["/v1/search", "/v1/forecast"]);
    expect(Object.fromEntries(requests[0]?.query ?? [])).toEqual({ name: "Tokyo", count: "1" });
    expect(Object.fromEntries(requests[1]?.query ?? [])).toEqual({
      latitude: "35.6895",
      longitude: "139.69171",
      current: "temperature_2m,wind_speed_10m,weather_code",
      temperature_unit: "fahrenheit",
    });
  });

  it("reports fahrenheit with the unit the service returns", async () => {
    const { result } = await executeDirectly(getTool(), { city: "Tokyo", units: "fahrenheit" }, { context: context() });
    expect(textOf(result)).toContain("72.3°F");
  });

  it("reports its progress as partial results, geocoding first, then the forecast", async () => {
    const { partials } = await executeDirectly(getTool(), { city: "Tokyo" }, { context: context() });
    expect(partials).toEqual([
      { stage: "geocoding", city: "Tokyo" },
      {
        stage: "forecast",
        location: { name: "Tokyo", country: "Japan", latitude: 35.6895, longitude: 139.69171, timezone: "Asia/Tokyo" },
      },
    ]);
  });

  it("emits its partial results as toolExecUpdate events between start and end", async () => {
    const { events } = await runToolCall(getTool(), { city: "Tokyo" }, context());
    expect(events.map((e) => e.type)).toEqual(["toolExecStart", "toolExecUpdate", "toolExecUpdate", "toolExecEnd"]);
  });

  it("fails with a clear message when the city is not found", async () => {
    await expect(executeDirectly(getTool(), { city: "Nowhere" }, { context: context() })).rejects.toThrow('City "Nowhere" not found');
  });

  it("fails naming the HTTP status when the service answers 500", async () => {
    await expect(executeDirectly(getTool(), { city: "Broken" }, { context: context() })).rejects.toThrow(
      "The geocoding service answered HTTP 500",
    );
  });

  it("fails when the service returns something that is not JSON", async () => {
    await expect(executeDirectly(getTool(), { city: "Garbage" }, { context: context() })).rejects.toThrow(/not valid JSON/);
  });

  it("fails with a clear message when the service cannot be reached", async () => {
    const closedPort = { env: { GEOCODING_API_BASE_URL: "http://127.0.0.1:1", WEATHER_API_BASE_URL: baseUrl } };
    await expect(executeDirectly(getTool(), { city: "Tokyo" }, { context: closedPort })).rejects.toThrow(
      /Could not reach the geocoding service/,
    );
  });

  it("reaches the model as an error result when the service fails", async () => {
    const { message } = await runToolCall(getTool(), { city: "Broken" }, context());
    expect(message.isError).toBe(true);
    expect(textOf(message)).toContain("HTTP 500");
  });

  it("passes the abort signal to fetch, so aborting ends a slow request", async () => {
    const controller = new AbortController();
    const running = executeDirectly(getTool(), { city: "Slow" }, { signal: controller.signal, context: context() });
    const settled = running.then(
      () => "resolved",
      () => "rejected",
    );
    const req = await slowRequestArrived;
    const clientGone = new Promise<void>((resolve) => req.socket.once("close", () => resolve()));
    controller.abort(new Error("user pressed stop"));
    expect(await settled).toBe("rejected");
    await clientGone; // the server saw the connection closed by the client
  });
});
