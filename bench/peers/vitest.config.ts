// The peers package's own tests (`npm test` here), apart from the runtime's suite, which never installs the peers.
import { defineConfig } from "vitest/config";

export default defineConfig({ test: { include: ["*.test.ts"], environment: "node", testTimeout: 60_000 } });
