import { BaseSequencer, type TestSpecification } from "vitest/node";

// The order files start in (vitest.config.ts). The workers take files from one queue, so the run
// ends when the last long file does: a long file that starts last leaves the other workers idle
// for its length. vitest starts the longest files first once it has timed a run on this machine,
// but a fresh clone (CI, a new user) has no timings, and vitest then starts the largest files
// first, which put the demo (a small file that runs the whole demo) and the nested test runs at
// the very end. These files, the longest of their tier when last measured (whole runs of 2026-12-07,
// bench/results/test-suite.md: packaging with its install, which the JSON reporter's file times
// leave out; crash, cli-edges, sessions and b-crash as cut in the last section), start first,
// longest first, when vitest has no timing for them.
export const LONG_FILES = [
  // e2e
  "scripts/packaging.e2e.test.ts",
  "scripts/demo.e2e.test.ts",
  "packages/agents/test/convergence/kill-matrix.e2e.test.ts",
  "packages/agents/test/e2e/crash.test.ts",
  "packages/agents/test/e2e/playground.test.ts",
  "packages/agents/test/state/postgres-store.e2e.test.ts",
  "packages/forge-mcp/test/oauth/consent-chromium.e2e.test.ts",
  "packages/agents/test/e2e/cli-edges.test.ts",
  "packages/agents/test/e2e/sessions.test.ts",
  "scripts/test-services.e2e.test.ts",
  "packages/agents/test/e2e/storm.test.ts",
  "packages/agents/test/e2e/team-state.test.ts",
  "packages/forge-mcp/test/stdio.e2e.test.ts",
  "packages/forge-mcp/test/main.e2e.test.ts",
  // unit
  "packages/agents/test/convergence/matrix.test.ts",
  "packages/forge-mcp/test/tools/table.test.ts",
  "packages/agents/test/convergence/examples.test.ts",
];

export default class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const rank = (spec: TestSpecification) => {
      const key = spec.moduleId.slice(root.length + 1);
      const timed = this.ctx.cache.getFileTestResults(`${spec.project.name}:${key}`);
      const index = LONG_FILES.indexOf(key);
      return timed || index < 0 ? LONG_FILES.length : index;
    };
    // Stable within each project, which run one after the other in super's order.
    const groups = new Map<string, TestSpecification[]>();
    for (const spec of sorted)
      groups.set(spec.project.name, [...(groups.get(spec.project.name) ?? []), spec]);
    return [...groups.values()].flatMap((group) =>
      group
        .map((spec, i) => ({ spec, i, r: rank(spec) }))
        .sort((a, b) => a.r - b.r || a.i - b.i)
        .map(({ spec }) => spec),
    );
  }
}
