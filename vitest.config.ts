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
    ],
  },
});
