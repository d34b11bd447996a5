// Types of the bundled client SDK (public/client.js, generated from src/client): lets `tsc` check the
// page's imports of "../client.js" against the SDK's source types.
export * from "../src/client/index.ts";
