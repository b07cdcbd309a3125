// Issue 38 item 1: the file backend keeps agents.state.json.backup, the state one write back
// (0600), and a state that cannot be read is one line plus a hint naming the backup and the ways
// back (agents state push, agents sync, agents import), never a stack trace. The CLI's commands
// against the provider_c simulator: the refusals of one damage and of a missing backup spawn the
// real CLI (what a user's terminal shows, no stack trace included); the applies that set each case
// up and the other damages run the same commands in the test's process (./cli-here.ts), since a
// spawned CLI costs about a second a step on two cores.
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type CliResult, runCli } from "./cli.js";
import { runCliHere } from "./cli-here.js";
import { liveObjects, removedAfterAll, simState, simulatorForFile } from "./project.js";

const dirs = removedAfterAll();
const c = simulatorForFile("provider_c");
const env = { AGENTS_STATE_KEY: "backup-key", C_API_KEY: "sim-provider-c-key" };

function config(instructions: string): string {
  return [
    'version: "1"',
    "providers:",
    "  provider_c:",
    "    api_key: ${C_API_KEY}",
    `    base_url: ${c.url}`,
    "environments:",
    "  sandbox:",
    "    provider: provider_c",
    "    config:",
    "      type: cloud",
    "agents:",
    "  writer:",
    "    provider: provider_c",
    "    model: claude-sonnet-4-5",
    `    instructions: ${instructions}`,
    "",
  ].join("\n");
}

type Run = (dir: string, ...args: string[]) => Promise<CliResult>;
const spawned: Run = (dir, ...args) => runCli(args, { cwd: dir, env, timeoutMs: 60_000 });
const here: Run = (dir, ...args) => runCliHere(args, { cwd: dir, env });

async function appliedTwice(): Promise<{ dir: string; first: string; state: string; backup: string }> {
  await fetch(`${c.origin}/_sim/reset`, { method: "POST" });
  const dir = mkdtempSync(join(tmpdir(), "agents-backup-"));
  dirs.push(dir);
  await fs.writeFile(join(dir, "agents.yaml"), config("Write clearly."));
  expect((await here(dir, "apply", "--auto-approve")).code).toBe(0);
  const first = await fs.readFile(join(dir, "agents.state.json"), "utf8");
  await fs.writeFile(join(dir, "agents.yaml"), config("Write briefly."));
  const second = await here(dir, "apply", "--auto-approve");
  expect(second.code, second.stderr).toBe(0);
  return { dir, first, state: join(dir, "agents.state.json"), backup: join(dir, "agents.state.json.backup") };
}

const readJson = async (path: string) => JSON.parse(await fs.readFile(path, "utf8"));

/** Ways a state file is damaged, each refused with the backup and the ways back named; the first by the spawned CLI. */
const DAMAGE = [
  {
    name: "cut short",
    damage: (text: string) => text.slice(0, text.length / 2),
    says: /not valid JSON/,
    cli: "spawned",
  },
  { name: "not an object", damage: () => "[]", says: /not a state file/, cli: "here" },
  {
    name: "serial missing",
    damage: (text: string) => JSON.stringify({ ...JSON.parse(text), serial: undefined }),
    says: /malformed state/,
    cli: "here",
  },
];

describe("agents.state.json.backup", () => {
  it("after two applies holds the state one write back, mode 0600", async () => {
    const { first, state, backup } = await appliedTwice();
    const current = await readJson(state);
    // The second apply wrote the state once: the backup is the file the first apply left.
    expect(await fs.readFile(backup, "utf8")).toBe(first);
    const previous = await readJson(backup);
    expect(previous.lineage).toBe(current.lineage);
    expect(previous.serial).toBeLessThan(current.serial);
    expect(previous.resources['provider_c.agents["writer"]'].spec.instructions).toBe("Write clearly.");
    expect(current.resources['provider_c.agents["writer"]'].spec.instructions).toBe("Write briefly.");
    expect((await fs.stat(backup)).mode & 0o777).toBe(0o600);
  });

  it.each(DAMAGE)(
    "a state $name: one line and a hint naming the backup and the ways back (CLI $cli)",
    async ({ damage, says, cli }) => {
      const run = cli === "spawned" ? spawned : here;
      const { dir, state, backup } = await appliedTwice();
      const previous = await readJson(backup);
      await fs.writeFile(state, damage(await fs.readFile(state, "utf8")));
      const objects = liveObjects(await simState(c)).length;
      for (const command of [["plan"], ["apply", "--auto-approve"]]) {
        const refused = await run(dir, ...command);
        expect(refused.code).not.toBe(0);
        const lines = refused.stderr.trim().split("\n");
        expect(lines, refused.stderr).toHaveLength(2);
        expect(lines[0]).toMatch(says);
        expect(lines[1]).toContain(
          `${backup} holds the state before the last write (serial ${previous.serial})`,
        );
        for (const way of [`agents state push ${backup}`, "agents sync", "agents import"])
          expect(lines[1]).toContain(way);
      }
      expect(liveObjects(await simState(c))).toHaveLength(objects);

      // The way back the hint names: move the broken file aside, push the backup, plan.
      await fs.rename(state, `${state}.broken`);
      const pushed = await run(dir, "state", "push", backup);
      expect(pushed.code, pushed.stderr).toBe(0);
      const plan = await run(dir, "plan");
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stdout).toContain("2 resources");
      expect(plan.stdout).toContain("No changes.");
    },
  );

  it("without a backup the hint says so and still names the ways back", async () => {
    const { dir, state, backup } = await appliedTwice();
    await fs.rm(backup);
    await fs.writeFile(state, "{");
    const refused = await spawned(dir, "plan");
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`there is no readable backup (${backup})`);
    for (const way of ["agents state push", "agents sync", "agents import"])
      expect(refused.stderr).toContain(way);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
  });
});
