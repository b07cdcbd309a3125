// The CLI's wiring of `agents memory` (the commands' behaviour per provider is in
// test/engine/memories.test.ts): put reads the content from stdin, get prints it as stored;
// import prints its report and exits 1 when a file could not be imported.
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inProcessProject } from "../convergence/in-process.js";
import { type CliResult, runCli } from "./cli.js";
import { simulatorForFile } from "./project.js";

const ENV = { AGENTS_STATE_KEY: "memory-cli", C_API_KEY: "sim-provider-c-key" };

const sim = simulatorForFile("provider_c");
let dir: string;

/** The built CLI with `input` on its stdin. */
const cli = (args: string[], input = ""): Promise<CliResult> => runCli(args, { cwd: dir, env: ENV, input });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agents-memory-cli-"));
  await fs.writeFile(
    join(dir, "agents.yaml"),
    `version: "1"\nproviders:\n  provider_c:\n    api_key: \${C_API_KEY}\n    base_url: ${sim.url}\nmemory_stores:\n  notes:\n    description: Notes\n`,
  );
});
afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe("agents memory", () => {
  it("puts from stdin and gets the content back as stored", async () => {
    expect((await inProcessProject(dir, ENV).apply()).code).toBe(0);
    const put = await cli(["memory", "put", "notes", "style.md"], "Be brief.\nAlways.\n");
    expect(put.code).toBe(0);
    expect(put.stdout).toMatch(/^Created \/style\.md \(\S+\)\n$/);
    const got = await cli(["memory", "get", "notes", "/style.md"]);
    expect({ code: got.code, stdout: got.stdout }).toEqual({ code: 0, stdout: "Be brief.\nAlways.\n" });
  });

  it("import --dry-run prints what would change; a file that fails makes the exit code 1", async () => {
    const folder = join(dir, "folder");
    await fs.mkdir(join(folder, "team"), { recursive: true });
    await fs.writeFile(join(folder, "team", "tone.md"), "Warm.");
    await fs.writeFile(join(folder, "style.md"), "Be brief.\nAlways.\n");
    await fs.writeFile(join(folder, "raw.bin"), Buffer.from([0xff, 0xfe]));
    const dry = await cli(["memory", "import", "notes", "folder", "--dry-run", "--concurrency", "2"]);
    expect({ code: dry.code, stderr: dry.stderr }).toEqual({ code: 1, stderr: "" });
    expect(dry.stdout).toMatch(
      /^\+ \/team\/tone\.md\n! raw\.bin: not UTF-8 text \(memories hold text\)\nDry run: 1 would be created, 0 would be updated, 1 unchanged, 1 failed in memory store notes \(\S+\)\.\n$/,
    );
    await fs.rm(join(folder, "raw.bin"));
    const done = await cli(["memory", "import", "notes", "folder"]);
    expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: "" });
    expect(done.stdout).toMatch(
      /^\+ \/team\/tone\.md\n1 created, 0 updated, 1 unchanged in memory store notes/,
    );
  });
});
