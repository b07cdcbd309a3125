// `agents test` through the real, built CLI: its exit codes (0 all passed, 1 a test failed, 2 a
// test file is wrong) with the reports it writes, and Ctrl-C during `--ephemeral` still destroying
// what it created. The provider matrix runs in-process (test/engine/agent-tests.test.ts).
import { spawn } from "node:child_process";
import { promises as fs, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyAll, KEYS, type SessionWorld, sessionWorld, setChunkMs } from "../engine/sessions-project.js";
import { CLI, runCli } from "./cli.js";
import { liveOwnedBy } from "./project.js";

let world: SessionWorld;
const cli = (...args: string[]) => runCli(args, { cwd: world.dir });

const PASSING = `grader: {agent: talk-d}
tests:
  - name: echoes
    agent: talk-c
    messages: ["Hello there ${KEYS.VAULT_SECRET}"]
    expect:
      - contains: Hello there
      - rubric: 'The reply says "hello there".'
`;

beforeAll(async () => {
  world = await sessionWorld(undefined, "agents-test-cli-");
  await applyAll(world);
  await fs.mkdir(join(world.dir, "tests"));
  await fs.writeFile(join(world.dir, "tests", "pass.test.yaml"), PASSING);
  await fs.writeFile(
    join(world.dir, "agents.test.yaml"),
    `tests:
  - name: says goodbye
    agent: talk-d
    messages: [Hello]
    expect: [{contains: Goodbye}]
`,
  );
}, 60_000);
afterAll(() => world?.close());

describe("agents test through the CLI", () => {
  it("exit 0 when every test passes: a line per test, the summary, a JUnit file; no secret anywhere", async () => {
    const r = await cli("test", "tests/pass.test.yaml", "--junit", "report.xml");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^PASS {2}tests\/pass\.test\.yaml: echoes \(talk-c, \d+\.\ds\)\n1 passed, 0 failed in \d+\.\ds; grading: 1 grader session\n$/,
    );
    const junit = readFileSync(join(world.dir, "report.xml"), "utf8");
    expect(junit).toContain('<testcase name="echoes" classname="tests/pass.test.yaml"');
    expect(junit).not.toContain(KEYS.VAULT_SECRET);
  });

  it("exit 1 when a test fails (default files: agents.test.yaml and tests/*.test.yaml); --json is one document", async () => {
    const r = await cli("test", "--json");
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ passed: 1, failed: 1, errors: 0, exit_code: 1 });
    expect(doc.results.map((t: { name: string; status: string }) => [t.name, t.status])).toEqual([
      ["says goodbye", "failed"],
      ["echoes", "passed"],
    ]);
    expect(doc.results[0].failures).toEqual([
      { expectation: 'contains: "Goodbye"', seen: 'final text "(simulated) received: Hello"' },
    ]);
    expect(r.stdout).not.toContain(KEYS.VAULT_SECRET);
  });

  it("exit 2 when a test file is wrong, each finding at its file:line:col, no session started", async () => {
    await fs.writeFile(join(world.dir, "bad.test.yaml"), PASSING.replace("agent: talk-c", "agent: talk-e"));
    const r = await cli("test", "bad.test.yaml");
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(
      'error: bad.test.yaml:4:12 error AGENTS1901 agent "talk-e" is not an agent of agents.yaml (did you mean "talk-a"?)',
    );
    expect(r.stderr).toContain("1 error, 0 warnings in the test files");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("Ctrl-C during --ephemeral: the running tests stop, the throw-away project is destroyed, exit 130", async () => {
    setChunkMs(world, 300);
    const child = spawn(process.execPath, [CLI, "test", "tests/pass.test.yaml", "--ephemeral"], {
      cwd: world.dir,
      env: { ...process.env, AGENTS_DEBUG: "", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    let stdout = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    const applied = new Promise<void>((resolve) =>
      child.stderr.on("data", (d) => {
        stderr += d;
        // The apply is done and the test's turn is playing when the first session exists.
        if (stderr.includes("ephemeral: applying")) setTimeout(resolve, 800);
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    await applied;
    child.kill("SIGINT");
    const code = await exited;
    setChunkMs(world, 0);
    expect(stderr).toContain("stopping: the running tests end, then the ephemeral project is destroyed");
    expect(stderr).toMatch(/ephemeral: destroying project agents-test-cli-\w+-test-[0-9a-f]{8}/);
    expect(code).toBe(130);
    const project = /as project (\S+)/.exec(stderr)![1]!;
    expect(await liveOwnedBy([world.sims.c, world.sims.d], project)).toEqual([]);
    // Stopped during the apply or during the test, the run says no test passed.
    expect(stdout).not.toContain("PASS");
  });
});
