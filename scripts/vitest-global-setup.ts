import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import {
  cannotInstallReason,
  installMissingServices,
  TEST_SERVICES,
  type TestService,
} from "./test-services.js";

// The e2e tier's set-up (vitest.config.ts; the unit tier needs neither a build nor a service).
// Spawned-CLI tests run the compiled output. `npm test` builds first and passes SKIP_BUILD=1, so
// it builds once; when a developer runs `npm run test:e2e` or `npx vitest` directly, build here so
// no test ever runs against a stale or missing dist/.
function build(): void {
  const marker = "packages/agents/dist/.tsbuildinfo";
  if (process.env.SKIP_BUILD === "1" && existsSync(marker) && statSync(marker).size > 0) return;
  execFileSync("npm", ["run", "build", "--silent"], { stdio: "inherit" });
}

/** One line naming what could not run here, grouped by the service it needs. */
export function notRunLine(lines: string[], missing: TestService[], reason: string | undefined): string {
  const byService = new Map<string, string[]>();
  for (const line of lines) {
    const { service, name } = JSON.parse(line) as { service: string; name: string };
    byService.set(service, [...(byService.get(service) ?? []), name]);
  }
  const parts = [...byService].map(([s, names]) => `${s} (${names.map((n) => `"${n}"`).join(", ")})`);
  const why = reason ? `could not install: ${reason}` : "apt-get could not install them";
  const packages = missing.map((s) => TEST_SERVICES[s].debian).join(" ");
  return `Not run here, ${lines.length} suite(s) need a service that is not installed (${why}; apt-get install ${packages}): ${parts.join("; ")}`;
}

export default function setup(project: TestProject): () => void {
  build();
  const missing = installMissingServices((line) => process.stdout.write(`${line}\n`));
  const dir = mkdtempSync(join(tmpdir(), "agents-tests-"));
  const notRunFile = join(dir, "not-run.jsonl");
  writeFileSync(notRunFile, "");
  project.provide("notRunFile", notRunFile);
  return () => {
    const lines = readFileSync(notRunFile, "utf8").split("\n").filter(Boolean);
    rmSync(dir, { recursive: true, force: true });
    if (lines.length > 0) process.stdout.write(`\n${notRunLine(lines, missing, cannotInstallReason())}\n`);
  };
}
