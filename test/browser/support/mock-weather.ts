/**
 * A stand-in for the Open-Meteo geocoding and forecast APIs (node:http on 127.0.0.1) that getWeather calls
 * when WEATHER_API_BASE_URL / GEOCODING_API_BASE_URL point here. Forecast answers can be held back, so a
 * browser test sees the tool card while it runs (partial results shown, no result yet) and can release,
 * abort or restart the server meanwhile. Started and closed by the browser tests.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type MockWeather = {
  url: string;
  /** Forecast requests received so far (including held ones). */
  forecastRequests(): number;
  /** From now on, forecast requests wait until release(). */
  hold(): void;
  /** Answers every held forecast and stops holding. */
  release(): void;
  close(): Promise<void>;
};

export const MOCK_TEMPERATURE = 21.5;

export async function startMockWeather(): Promise<MockWeather> {
  let holding = false;
  let forecasts = 0;
  const held: ServerResponse[] = [];

  const answerForecast = (res: ServerResponse) => {
    if (res.destroyed) return;
    sendJson(res, {
      current: { temperature_2m: MOCK_TEMPERATURE, wind_speed_10m: 12, weather_code: 0 },
      current_units: { temperature_2m: "°C", wind_speed_10m: "km/h" },
    });
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/v1/search") {
      const name = url.searchParams.get("name") ?? "Nowhere";
      return sendJson(res, { results: [{ name, country: "Testland", latitude: 52.52, longitude: 13.41, timezone: "Europe/Berlin" }] });
    }
    if (url.pathname === "/v1/forecast") {
      forecasts++;
      if (holding) return void held.push(res);
      return answerForecast(res);
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    forecastRequests: () => forecasts,
    hold: () => void (holding = true),
    release: () => {
      holding = false;
      for (const res of held.splice(0)) answerForecast(res);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sendJson(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
