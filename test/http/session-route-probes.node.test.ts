/**
 * The probes the unknown-id tests send (test/support/session-routes.ts) cover every route that addresses
 * a session by `:id`, as the routers register them: a route added later is probed too, or this fails.
 */
import { describe, expect, it } from "vitest";
import { servedRoutes } from "../support/served-routes.ts";
import { sessionRouteProbes } from "../support/session-routes.ts";

/** A registered route as a pattern its probes' paths match (each `:param` one path segment). */
const patternOf = (route: string) => {
  const [method, path] = route.split(" ") as [string, string];
  return { method, path: new RegExp(`^${path.replace(/:[A-Za-z]+/g, "[^/?]+")}(?:\\?.*)?$`) };
};

describe("the session route probes", () => {
  it("probe every route that addresses a session by id", () => {
    const sessionRoutes = servedRoutes().filter((route) => route.includes("/v1/sessions/:id"));
    expect(sessionRoutes.length).toBeGreaterThan(15);
    const probes = sessionRouteProbes("s_probe");
    const unprobed = sessionRoutes.filter((route) => {
      const { method, path } = patternOf(route);
      return !probes.some((probe) => probe.method === method && path.test(probe.path));
    });
    expect(unprobed).toEqual([]);
  });
});
