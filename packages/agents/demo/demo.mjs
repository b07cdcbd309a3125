// What a user sees: `agents init` in a fresh folder, `agents validate` on the starter, on a
// starter with mistakes, and on every example under examples/. Run after `npm run build`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnv } from "node:util";

const CLI = fileURLToPath(new URL("../dist/agents.mjs", import.meta.url));
const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const EXAMPLES = join(REPO, "examples");

function agents(args, { cwd, env = {} }) {
  const shownEnv = Object.keys(env).length > 0 ? "(variables from .env.example) " : "";
  process.stdout.write(`\n$ ${shownEnv}agents ${args.join(" ")}\n`);
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", ...env },
    encoding: "utf8",
  });
  process.stdout.write(result.stdout + result.stderr);
  process.stdout.write(`[exit ${result.status}]\n`);
  return result.status;
}

const envOf = (dir) => parseEnv(readFileSync(join(dir, ".env.example"), "utf8"));
const work = mkdtempSync(join(tmpdir(), "agents-demo-"));
let failures = 0;
try {
  process.stdout.write(`== agents init in ${work}\n`);
  failures +=
    agents(["init", "--provider", "provider_c", "--agent", "reviewer"], { cwd: work }) === 0 ? 0 : 1;
  process.stdout.write(`\n--- agents.yaml\n${readFileSync(join(work, "agents.yaml"), "utf8")}`);
  failures += agents(["validate"], { cwd: work, env: envOf(work) }) === 0 ? 0 : 1;

  process.stdout.write("\n== the same file with three mistakes (exit 1 expected)\n");
  const broken = readFileSync(join(work, "agents.yaml"), "utf8")
    .replace("    environment: default", "    environment: defualt")
    .replace("      type: cloud", "      type: cloud\n      setup_script: ./install.sh")
    .replace("builtin: [", "builtin: [web_fetchh, ");
  writeFileSync(join(work, "agents.yaml"), broken);
  if (agents(["validate"], { cwd: work, env: envOf(work) }) !== 1) failures += 1;
  agents(["validate", "--json"], { cwd: work, env: envOf(work) });

  process.stdout.write("\n== every example validates clean\n");
  for (const entry of readdirSync(EXAMPLES, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = join(EXAMPLES, entry.name);
    const file = relative(REPO, join(dir, "agents.yaml"));
    failures += agents(["validate", "-f", file], { cwd: REPO, env: envOf(dir) }) === 0 ? 0 : 1;
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.stdout.write(
  failures === 0 ? "\ndemo: all steps behaved as expected\n" : `\ndemo: ${failures} step(s) misbehaved\n`,
);
process.exitCode = failures === 0 ? 0 : 1;
