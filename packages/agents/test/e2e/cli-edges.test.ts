// The CLI's edges of issue 38, spawned as a user runs it: output into a pipe the reader closes.
import { spawnSync } from "node:child_process";
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStateFile } from "../../src/state/file-store.js";
import { CLI } from "./cli.js";

const env = { AGENTS_STATE_KEY: "edges-key", C_KEY: "sk-edges-secret-1234" };
const ENTRIES = 3000;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agents-edges-"));
  // Enough output to outgrow a pipe's buffer: 3,000 state entries, 3,000 findings.
  const agents = Array.from(
    { length: ENTRIES },
    (_, i) => `  a${i}:\n    model: m\n    instructions: x\n    bogus: 1`,
  );
  await fs.writeFile(
    join(dir, "agents.yaml"),
    ['version: "1"', "providers:", "  provider_c:", "    api_key: ${C_KEY}", "agents:", ...agents, ""].join(
      "\n",
    ),
  );
  const store = await openStateFile(join(dir, "agents.state.json"), "seed");
  await store.update((records) => {
    for (let i = 0; i < ENTRIES; i++) {
      const address = `provider_c.environments["e${i}"]`;
      records[address] = {
        address,
        kind: "environments",
        name: `e${i}`,
        provider: "provider_c",
        id: `env_${i}`,
        external: false,
        spec: {},
        dependsOn: [],
        updatedAt: new Date().toISOString(),
      };
    }
  });
  await store.release();
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

describe("a reader that closes the pipe (`| head`): the CLI stops quietly, as git does", () => {
  it.each([
    ["agents state list | head -1", "state list", ""],
    ["agents validate | head -1", "validate", ""],
    ["agents validate 2>err | head -1", "validate", "2>err"],
    ["agents validate --json | head -1", "validate --json", ""],
  ])("%s", (_title, args, redirect) => {
    // bash reports each side of the pipe: the CLI's exit code and what it said on stderr.
    const script = `node ${JSON.stringify(CLI)} ${args} ${redirect || "2>stderr.txt"} | head -1 >/dev/null; echo "\${PIPESTATUS[0]}"`;
    const run = spawnSync("bash", ["-c", script], {
      cwd: dir,
      env: { ...process.env, ...env, AGENTS_DEBUG: "", NO_COLOR: "1" },
      encoding: "utf8",
      timeout: 60_000,
    });
    const stderr = spawnSync("cat", [redirect ? "err" : "stderr.txt"], { cwd: dir, encoding: "utf8" }).stdout;
    expect(stderr).not.toMatch(/EPIPE|Error|\n\s+at /);
    expect(stderr).toBe("");
    // 128 + SIGPIPE, what the shell shows for `git log | head -1` (docs/cli.md)
    expect(run.stdout.trim()).toBe("141");
  });
});
