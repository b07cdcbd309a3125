#!/usr/bin/env node
// `npm run bench`: the headline benchmarks, one after the other so they do not compete for the
// two cores. Each script prints its figures and appends them to bench/results/.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
for (const script of ["validate.mjs", "sims.mjs", "apply.mjs", "state-postgres.mjs", "forge-mcp.mjs"]) {
  console.log(`\n━━━ bench/${script}`);
  // tsx: state-postgres.mjs starts its server with the tests' TypeScript helper.
  const run = spawnSync(process.execPath, ["--import", "tsx", `${here}${script}`], { stdio: "inherit" });
  if (run.status !== 0) {
    console.error(`bench/${script} failed (exit ${run.status ?? run.signal})`);
    process.exit(1);
  }
}
