import { defineConfig } from "vitest/config";

// Workspace packages resolve to their TypeScript sources in tests (the `tocsin-src` export
// condition), so tests never run against stale builds.
const conditions = ["tocsin-src", "module", "node", "development|production"];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["tocsin-src"] } },
  test: {
    // Component tests of the console (React Testing Library) are web/src/**/*.test.tsx; each
    // names its DOM environment (`// @vitest-environment jsdom`): every other file runs in Node.
    include: ["**/src/**/*.test.ts", "web/src/**/*.test.tsx", "tests/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    globalSetup: ["./tests/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    reporters: ["default", "./tests/totals-reporter.ts"],
  },
});
