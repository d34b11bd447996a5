/**
 * A model per session (README "Models"): chosen at creation from the MODELS allowlist, used for every LLM
 * call of the session, shown in the snapshot. The test Worker allows "mock-model" (configured) and
 * "mock-model-large" and "mock-model-small" (MODELS in wrangler.test.toml).
 */
import { describe, expect, it } from "vitest";
import { api, createSession, llmRequests, nextResponse, script, send } from "./support.ts";

type ModelSnapshot = { model: string };

describe("a model per session", () => {
  it("runs every LLM call on the model the session chose, and shows it in the snapshot", async () => {
    const session = await createSession({ model: "mock-model-large" });
    await script(session, { toolCalls: [{ name: "getTime", arguments: { timezone: "UTC" } }] }, { text: "done" });
    expect((await send(session, "what time is it?")).status).toBe(202);
    await nextResponse(session);
    const requests = (await llmRequests(session)) as unknown as { body: { model: string } }[];
    expect(requests.map((r) => r.body.model)).toEqual(["mock-model-large", "mock-model-large"]);
    const snapshot = (await (await api(`/v1/sessions/${session.id}`, { key: session.key })).json()) as ModelSnapshot;
    expect(snapshot.model).toBe("mock-model-large");
  });

  it("uses the configured model when the session names none", async () => {
    const session = await createSession();
    await script(session, { text: "hi" });
    await send(session, "hello");
    await nextResponse(session);
    const requests = (await llmRequests(session)) as unknown as { body: { model: string } }[];
    expect(requests[0]!.body.model).toBe("mock-model");
    expect(((await (await api(`/v1/sessions/${session.id}`, { key: session.key })).json()) as ModelSnapshot).model).toBe("mock-model");
  });

  it("refuses a model outside the allowlist with a 400 that names the allowed models", async () => {
    const res = await api("/v1/sessions", { method: "POST", json: { model: "gpt-5-huge" } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("bad_request");
    expect(body.error.message).toContain('model "gpt-5-huge" is not allowed here; allowed: mock-model, mock-model-large, mock-model-small');
  });
});
