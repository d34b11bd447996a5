import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import { USERS_API_TOKEN, USERS_AUDIENCE, USERS_ISSUER } from "./test/users/settings.ts";

/** A project whose tests run inside workerd against the test Worker, with the scripted mock LLM. */
function workersProject(
  name: string,
  include: string[],
  exclude: string[] = [],
  mcp: boolean | "oauth" = false,
  fileParallelism = true,
  configPath = "./test/worker/wrangler.test.toml",
  users = false,
  /** More bindings of this project's Worker (e.g. a setting turned on). */
  extraBindings: Record<string, string> = {},
): TestProjectInlineConfiguration {
  return {
    plugins: [
      cloudflareTest(({ inject }) => ({
        wrangler: { configPath },
        miniflare: {
          bindings: {
            OPENAI_API_KEY: "test-key",
            // The test Worker runs as deployed, where session ids are signed only with a configured secret.
            SIGNING_SECRET: "workers-test-signing-secret-0123456789",
            OPENAI_BASE_URL: inject("llmUrl"),
            OPENAI_MODEL: "mock-model",
            MAX_RETRY_DELAY_MS: "20",
            // Long enough for every test that answers an approval, short enough to test the timeout.
            APPROVAL_TIMEOUT_MS: "3000",
            // Repeating schedules at test speed, and a limit a test can reach.
            SCHEDULE_MIN_INTERVAL_MS: "300",
            MAX_SCHEDULES: "5",
            // The mock MCP server (test/support/mock-mcp-server.ts) in the projects that test MCP tools.
            ...(mcp === true ? { MCP_SERVERS: inject("mcpServers") } : {}),
            // The OAuth-protected MCP server (test/support/oauth-mcp-server.ts) and the URLs sessions may add.
            ...(mcp === "oauth" ? { MCP_SERVERS: inject("oauthMcpServers"), MCP_ALLOWED_URLS: inject("oauthAllowedUrls") } : {}),
            // Sign-in against the test's JWKS server (test/support/users-global-setup.ts), an operator, a small memory.
            ...(users
              ? {
                  AUTH_JWKS_URL: inject("jwksUrl"),
                  AUTH_ISSUER: USERS_ISSUER,
                  AUTH_AUDIENCE: USERS_AUDIENCE,
                  API_TOKEN: USERS_API_TOKEN,
                  MAX_MEMORIES: "3",
                  // A user's daily token budget the budget tests can reach with scripted usage (test/users/user-budget.test.ts).
                  USER_DAILY_TOKEN_BUDGET: "100000",
                }
              : {}),
            ...extraBindings,
          },
        },
      })),
    ],
    test: {
      name,
      include,
      exclude,
      testTimeout: 20_000,
      fileParallelism,
      globalSetup: [
        // On a fresh clone, the generated registries the Worker imports (as the node projects do).
        "test/support/generated-setup.ts",
        "test/support/workers-global-setup.ts",
        ...(mcp === true ? ["test/support/mcp-global-setup.ts"] : []),
        ...(mcp === "oauth" ? ["test/support/oauth-global-setup.ts"] : []),
        ...(users ? ["test/support/users-global-setup.ts"] : []),
      ],
    },
  };
}

/** Node-side tests that take tens of seconds each: `npm test` runs them, `npm run test:unit` does not. */
const SLOW_SCRIPT_TESTS = ["test/scripts/**/*.e2e.test.ts"];
/** Tests that reset every Durable Object of their Worker: the workers-restarts project, not workers. */
const RESTART_TESTS = [
  "test/session/restarts.test.ts",
  "test/session/schedule-restarts.test.ts",
  "test/session/write-tool-restarts.test.ts",
  "test/session/event-rows-migration.test.ts",
  "test/session/record-rows-migration.test.ts",
  "test/session/unread-answers-restarts.test.ts",
];
/** Node-side MCP tests that start `wrangler dev` themselves: in `npm test`, not in the quick check. */
const MCP_WRANGLER_TESTS = ["test/mcp/conformance/**/*.node.test.ts", "test/mcp/stateless-isolates.node.test.ts"];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "node",
          include: [
            "test/core/**/*.test.ts",
            "test/llm/**/*.test.ts",
            "test/tools/**/*.test.ts",
            "test/scripts/**/*.test.ts",
            "test/client/**/*.test.ts",
            "test/wire/**/*.test.ts",
            "test/observability/**/*.test.ts",
            "test/**/*.node.test.ts",
            "test/mcp/*.test.ts",
          ],
          // Slow tests that run whole scripts against a project copy live in "scripts-e2e" below, so this
          // project (`npm run test:unit`) stays a quick check of well under a minute.
          exclude: [...SLOW_SCRIPT_TESTS, ...MCP_WRANGLER_TESTS],
          environment: "node",
          globalSetup: ["test/support/generated-setup.ts"],
        },
      },
      {
        // The conformance suite and the two-isolate test against `wrangler dev` servers they start themselves.
        test: {
          name: "mcp-e2e",
          include: MCP_WRANGLER_TESTS,
          environment: "node",
          globalSetup: ["test/support/generated-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
      {
        // Build and ops scripts run end to end as child processes on throwaway project folders (each starts
        // workerd; the redeploy alone takes over a minute).
        test: {
          name: "scripts-e2e",
          include: SLOW_SCRIPT_TESTS,
          environment: "node",
          globalSetup: ["test/support/generated-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
      workersProject(
        "workers",
        ["test/session/**/*.test.ts", "test/http/**/*.test.ts", "test/reliability/**/*.test.ts"],
        [...RESTART_TESTS, "test/**/*.node.test.ts"],
      ),
      // Sessions with remote MCP servers configured (every session there gets their tools by default).
      // One file at a time: the restart test there resets every object of its Worker.
      workersProject("workers-mcp", ["test/mcp/workers/**/*.test.ts"], [], true, false),
      // An MCP server behind OAuth, and servers sessions add within MCP_ALLOWED_URLS.
      workersProject("workers-mcp-oauth", ["test/mcp/oauth/**/*.test.ts"], [], "oauth", false),
      // Sub-agents (parent and child sessions) with fixture sub-agents, restarts included: a Worker of their own, one file at a time.
      workersProject(
        "workers-subagents",
        ["test/subagents/**/*.test.ts"],
        ["test/**/*.node.test.ts"],
        false,
        false,
        "./test/worker/wrangler.sub-agents.toml",
      ),
      // Signed-in users (a JWKS server of the test's own), their sessions and memory: one file at a time.
      workersProject("workers-users", ["test/users/**/*.test.ts"], ["test/**/*.node.test.ts"], false, false, undefined, true),
      // Code mode on (runCode), restarts included: a Worker of its own, one file at a time.
      workersProject("workers-code-mode", ["test/code-mode/**/*.test.ts"], ["test/**/*.node.test.ts"], false, false, undefined, false, {
        CODE_MODE: "true",
      }),
      // Restart tests reset every Durable Object of their Worker: a Worker of their own, one file at a time.
      workersProject("workers-restarts", RESTART_TESTS, [], false, false),
      {
        // Against a real `wrangler dev` (support/wrangler-dev.ts); one server at a time.
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        // Attacks against a real `wrangler dev` run as deployed, from outside (test/security/); one file at a time.
        test: {
          name: "security",
          include: ["test/security/**/*.test.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        // Debian Chromium (playwright-core) driving public/ against a real `wrangler dev`; one file at a time.
        test: {
          name: "browser",
          include: ["test/browser/**/*.test.ts"],
          environment: "node",
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
