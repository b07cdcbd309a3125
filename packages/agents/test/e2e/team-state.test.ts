// Issue 23 item 7: one state shared by clones of a project in folders of different names (two
// laptops, a CI runner's checkout path). The state records the project at its first write, so a
// clone adopts what another created (no duplicate, nothing left after destroy); secret hashes are
// keyed with the state's own key, so teammates with their own AGENTS_STATE_KEY agree; plan and
// `state list` name the state they read. On PostgreSQL (the committed `state:` block) and on a
// file both clones point at.
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeWith } from "../../../../scripts/test-services.js";
import { keyedHash } from "../../src/state/secrets.js";
import { inProcessProject } from "../convergence/in-process.js";
import { type PgServer, testPostgres } from "../state/pg-server.js";
import { runCliHere as runCli } from "./cli-here.js";
import {
  copyCrashProject,
  liveObjects,
  removedAfterAll,
  SECRETS,
  setFaults,
  simState,
  simulatorForFile,
} from "./project.js";

/** What crash-c declares: environment, vault, memory store, agent, deployment. */
const RESOURCES = 5;

const c = simulatorForFile("provider_c");
const dirs = removedAfterAll();

/** A clone of the project in a folder of its own name, with the shared `state:` block committed. */
async function clone(prefix: string, stateBlock: string): Promise<string> {
  const dir = await copyCrashProject(c, prefix);
  dirs.push(dir);
  await fs.appendFile(join(dir, "agents.yaml"), `\n${stateBlock}`);
  return dir;
}

/** Each member's own machine: an empty config home (no per-user key file), and `extra`. */
function member(dir: string, extra: Record<string, string> = {}) {
  const home = mkdtempSync(join(tmpdir(), "agents-team-home-"));
  dirs.push(home);
  return inProcessProject(dir, { XDG_CONFIG_HOME: home, ...extra });
}

/** Live objects that carry an ownership label, by `agents.resource`. */
async function ownedByAddress(): Promise<Map<string, Array<{ id: string; project?: string }>>> {
  const out = new Map<string, Array<{ id: string; project?: string }>>();
  for (const o of liveObjects(await simState(c))) {
    const address = o.metadata?.["agents.resource"];
    if (!address) continue;
    out.set(address, [...(out.get(address) ?? []), { id: o.id, project: o.metadata?.["agents.project"] }]);
  }
  return out;
}

/** `stateBlock` gives a fresh shared state's block, and how plan names it after `state: `. */
function teamCases(stateBlock: () => { block: string; named: string }, env: () => Record<string, string>) {
  it("a clone in another folder adopts what a dead run of the first created: no duplicate, clean plan, nothing after destroy", async () => {
    await fetch(`${c.origin}/_sim/reset`, { method: "POST" });
    const { block, named } = stateBlock();
    const dirA = await clone("agents-laptop-", block);
    const dirB = await clone("agents-ci-checkout-", block);
    expect(basename(dirA)).not.toBe(basename(dirB));
    const first = member(dirA, env());
    const second = member(dirB, env());

    // Clone 1's creates are made but their answers are lost: the run ends with every create failed.
    await setFaults(c, {
      rules: [{ method: "POST", nth: 1, repeat: true, action: { type: "drop_response" } }],
    });
    const dead = await first.apply();
    await setFaults(c, {});
    expect(dead.code, dead.text).toBe(1);
    const made = await ownedByAddress();
    expect(made.size, "creates the provider made for clone 1").toBeGreaterThanOrEqual(1);
    for (const owners of made.values()) expect(owners[0]!.project).toBe(basename(dirA));

    // Clone 2 plans and applies: it adopts each of them (the state's project, not its folder's).
    const planned = await second.plan();
    const applied = await second.apply();
    expect(applied.code, applied.text).toBe(0);
    const after = await ownedByAddress();
    expect(after.size).toBe(RESOURCES);
    for (const [address, owners] of after) {
      expect(owners, `duplicates of ${address}`).toHaveLength(1);
      expect(owners[0]!.project, address).toBe(basename(dirA));
    }
    expect(planned.plan?.actions.filter((a) => a.action === "adopt").length).toBe(made.size);
    // It said which state and project it read, and that the state's name won over its folder's.
    expect(planned.text).toContain(
      `state: ${named} (project "${basename(dirA)}", empty: nothing recorded there yet)`,
    );
    expect(planned.text).toContain(`note: using project "${basename(dirA)}" recorded in the state (`);
    expect(planned.text).toContain(`not this folder's name "${basename(dirB)}"`);
    const clean = await second.plan();
    expect(clean.code, clean.text).toBe(0);
    expect(clean.text).toContain(`(project "${basename(dirA)}", ${RESOURCES} resources)`);
    // The first clone sees the same state, with nothing to do.
    expect((await first.plan()).code).toBe(0);

    const destroyed = await second.destroy();
    expect(destroyed.code, destroyed.text).toBe(0);
    expect(await ownedByAddress()).toEqual(new Map());
  }, 60_000);

  it("teammates with their own AGENTS_STATE_KEY agree on every secret (no change, either way)", async () => {
    await fetch(`${c.origin}/_sim/reset`, { method: "POST" });
    const { block } = stateBlock();
    const alice = member(await clone("agents-alice-", block), { ...env(), AGENTS_STATE_KEY: "alice" });
    const bob = member(await clone("agents-bob-", block), { ...env(), AGENTS_STATE_KEY: "bob" });
    expect((await alice.apply()).code).toBe(0);
    // Before, each apply re-hashed under its member's key and the other's next plan saw a change.
    for (const [who, step] of [
      ["bob", bob],
      ["alice", alice],
    ] as const) {
      const planned = await step.plan();
      expect(planned.code, `${who}: ${planned.text}`).toBe(0);
      const applied = await step.apply();
      expect(applied.text, who).not.toContain("access_token");
    }
    expect((await bob.destroy()).code).toBe(0);
  }, 60_000);
}

describe("team state in a file both clones point at", () => {
  let shared: string;
  beforeAll(() => {
    shared = mkdtempSync(join(tmpdir(), "agents-team-file-"));
    dirs.push(shared);
  });
  let n = 0;
  teamCases(
    () => {
      n += 1;
      const path = join(shared, `team${n}.state.json`);
      return { block: `state:\n  backend: file\n  path: ${path}\n`, named: `file ${path}` };
    },
    () => ({}),
  );

  it("an older state keyed with a member's own key is re-keyed on that member's next apply, without a change", async () => {
    await fetch(`${c.origin}/_sim/reset`, { method: "POST" });
    const path = join(shared, "legacy.state.json");
    const block = `state:\n  backend: file\n  path: ${path}\n`;
    const alice = member(await clone("agents-alice-", block), { AGENTS_STATE_KEY: "alice" });
    const bob = member(await clone("agents-bob-", block), { AGENTS_STATE_KEY: "bob" });
    expect((await alice.apply()).code).toBe(0);
    // Rewrite it as the previous version left it: v1, no project, hashes under alice's own key.
    const stored = JSON.parse(await fs.readFile(path, "utf8"));
    const key = Buffer.from(stored.hashKey, "hex");
    const text = JSON.stringify({ ...stored, version: 1, hashKey: undefined, project: undefined }).replaceAll(
      keyedHash(key, SECRETS.GITHUB_TOKEN),
      keyedHash(Buffer.from("alice"), SECRETS.GITHUB_TOKEN),
    );
    expect(text).toContain(keyedHash(Buffer.from("alice"), SECRETS.GITHUB_TOKEN));
    await fs.writeFile(path, text);

    const migrated = await alice.apply();
    expect(migrated.code, migrated.text).toBe(0);
    expect(migrated.text).toContain("No changes.");
    const now = JSON.parse(await fs.readFile(path, "utf8"));
    expect(now.version).toBe(2);
    expect(now.hashKey).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(now)).not.toContain(keyedHash(Buffer.from("alice"), SECRETS.GITHUB_TOKEN));
    expect((await bob.plan()).code).toBe(0);
    expect((await bob.destroy()).code).toBe(0);
  }, 60_000);
});

describeWith("postgresql")("team state on PostgreSQL (the committed state: block)", () => {
  let server: PgServer | undefined;
  beforeAll(async () => {
    server = await testPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  let n = 0;
  teamCases(
    () => {
      n += 1;
      return {
        block: `state:\n  backend: postgres\n  url: \${AGENTS_STATE_URL}\n  workspace: team${n}\n`,
        named: `postgres 127.0.0.1:${server!.port}/${server!.database} schema agents_state workspace "team${n}"`,
      };
    },
    () => ({ AGENTS_STATE_URL: server!.url }),
  );

  it("AGENTS_PROJECT that contradicts the state's project is refused, naming the fix; state list names the state", async () => {
    await fetch(`${c.origin}/_sim/reset`, { method: "POST" });
    const block = "state:\n  backend: postgres\n  url: ${AGENTS_STATE_URL}\n  workspace: named\n";
    const dirA = await clone("agents-named-", block);
    const env = { AGENTS_STATE_URL: server!.url };
    expect((await member(dirA, { ...env, AGENTS_PROJECT: "shop" }).apply()).code).toBe(0);
    const dirB = await clone("agents-other-", block);
    const refused = await member(dirB, { ...env, AGENTS_PROJECT: "shop-ci" }).plan();
    expect(refused.code).toBe(1);
    expect(refused.error).toContain('AGENTS_PROJECT is "shop-ci"');
    expect(refused.error).toContain('belongs to project "shop"');
    expect(refused.error).toContain('unset AGENTS_PROJECT or set it to "shop"');
    expect(refused.error).not.toContain(server!.password);
    // Unset, the folder's name gives way to the state's: the CLI says so on stderr, and its plan
    // starts with the state it read.
    const cliPlan = await runCli(["plan"], { cwd: dirB, env });
    expect(cliPlan.code, cliPlan.stderr).toBe(0);
    expect(cliPlan.stderr).toBe(
      `note: using project "shop" recorded in the state (postgres 127.0.0.1:${server!.port}/${server!.database} schema agents_state workspace "named"), not this folder's name "${basename(dirB)}"\n`,
    );
    expect(cliPlan.stdout.split("\n")[0]).toBe(
      `state: postgres 127.0.0.1:${server!.port}/${server!.database} schema agents_state workspace "named" (project "shop", ${RESOURCES} resources)`,
    );

    const list = await runCli(["state", "list"], { cwd: dirB, env });
    expect(list.code, list.stderr).toBe(0);
    const [first, ...entries] = list.stdout.trimEnd().split("\n");
    expect(first).toBe(
      `state: postgres 127.0.0.1:${server!.port}/${server!.database} schema agents_state workspace "named" (project "shop", ${RESOURCES} resources)`,
    );
    expect(entries).toHaveLength(RESOURCES);
    expect(list.stderr + list.stdout).not.toContain(server!.password);
    expect((await member(dirB, env).destroy()).code).toBe(0);
  }, 60_000);
});
