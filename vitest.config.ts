import { defineConfig } from "vitest/config";

// One runner for the whole repository. Tests import TypeScript sources directly; tests that spawn
// the real CLI use the build output, which `npm test` produces first (globalSetup checks it).
export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "packages/*/src/**/*.test.ts", "scripts/**/*.test.ts"],
    globalSetup: ["./scripts/vitest-global-setup.ts"],
    testTimeout: 90_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
