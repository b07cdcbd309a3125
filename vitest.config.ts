import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import LongFilesFirst from "./scripts/vitest-sequencer.js";

// Two tiers (docs/architecture.md, "Tests"):
//   unit: in-process tests of the TypeScript sources, simulators included; no build, no spawned
//         CLI, no Debian service. `npm run test:unit` is the inner loop.
//   e2e:  what needs the build or the machine: the spawned CLI (every file under a test/e2e/
//         folder, and any file named *.e2e.test.ts), the Debian services (nginx, redis-server,
//         chromium, postgresql), packaging. Its global set-up builds (unless SKIP_BUILD=1 and a
//         build exists) and installs the services.
const E2E = ["packages/*/test/e2e/**/*.test.ts", "**/*.e2e.test.ts"];

export default defineConfig({
  // The simulators from their sources, so no test needs packages/sims/dist (the spawned CLI
  // bundles what it uses).
  resolve: {
    alias: { "@agents/sims": fileURLToPath(new URL("./packages/sims/src/index.ts", import.meta.url)) },
  },
  test: {
    testTimeout: 90_000,
    hookTimeout: 60_000,
    pool: "forks",
    // A larger young generation for the test workers (not for the processes they spawn): the
    // in-process simulators and servers allocate many short-lived objects, and with Node's default
    // 16 MiB semi-spaces the scavenger ran often; measured on the unit tier, 118.5 s of CPU without,
    // 104.6 s with (bench/results/test-suite.md, 2026-12-07).
    execArgv: ["--max-semi-space-size=32"],
    sequence: { sequencer: LongFilesFirst },
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          // The tiers run one after the other, unit first: side by side on two cores, the spawned
          // CLIs and services of e2e and the in-process unit tests slowed each other (180 s against
          // 155 s for the whole run, docs/architecture.md "Tests and benchmarks").
          sequence: { groupOrder: 0 },
          // One module graph per worker instead of one per file: re-importing the sources for each
          // of ~90 files was most of this tier's time (it measured a third of the CPU time without).
          // Unit tests touch no process.env, mock no module and close what they start.
          isolate: false,
          include: ["packages/*/test/**/*.test.ts", "packages/*/src/**/*.test.ts", "scripts/**/*.test.ts"],
          exclude: ["**/node_modules/**", ...E2E],
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          // Three workers here, two in unit: many e2e files wait (on the registry for packaging, on
          // spawned CLIs' back-off, on Chromium), so the tier leaves a core partly idle with two.
          // 2026-12-07, idle host: 111.4 s with two, 104.0 s with three; whole run 189 s → 180 s.
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
          // As in unit: each worker imports the sources and the simulators once, not once per file
          // (measured: 129 s to 105 s for this tier). No e2e test changes process.env or mocks a
          // module either, and each closes the servers and processes it starts.
          isolate: false,
          include: E2E,
          exclude: ["**/node_modules/**"],
          globalSetup: ["./scripts/vitest-global-setup.ts"],
        },
      },
    ],
  },
});
