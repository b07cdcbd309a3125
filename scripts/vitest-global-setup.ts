import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";

// Spawned-CLI tests run the compiled output. `npm test` builds first; when a developer runs
// `npx vitest` directly, build here so no test ever runs against a stale or missing dist/.
export default function setup(): void {
  const marker = "packages/agents/dist/.tsbuildinfo";
  if (process.env.SKIP_BUILD === "1" && existsSync(marker) && statSync(marker).size > 0) return;
  execFileSync("npx", ["tsc", "-b", "packages/sims", "packages/agents", "packages/forge-mcp"], {
    stdio: "inherit",
  });
}
