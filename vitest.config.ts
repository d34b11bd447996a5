import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "node",
          include: ["test/core/**/*.test.ts", "test/llm/**/*.test.ts", "test/tools/**/*.test.ts", "test/scripts/**/*.test.ts", "test/client/**/*.test.ts"],
          environment: "node",
        },
      },
      {
        plugins: [
          cloudflareTest(({ inject }) => ({
            wrangler: { configPath: "./test/worker/wrangler.test.toml" },
            miniflare: {
              bindings: {
                OPENAI_API_KEY: "test-key",
                OPENAI_BASE_URL: inject("llmUrl"),
                OPENAI_MODEL: "mock-model",
                MAX_RETRY_DELAY_MS: "20",
              },
            },
          })),
        ],
        test: {
          name: "workers",
          include: ["test/session/**/*.test.ts", "test/http/**/*.test.ts"],
          globalSetup: ["test/support/workers-global-setup.ts"],
          deps: { optimizer: { ssr: { enabled: true, include: ["openai"] } } },
        },
      },
    ],
  },
});
