// The whole life of a project on the provider_c and provider_d simulators, through the CLI:
// empty → apply → no changes → one-field edit → apply → drift → destroy leaves nothing behind.
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./cli.js";
import { runCliHere } from "./cli-here.js";
import { editConfig, liveObjects, makeProject, requestLog, SECRETS, simState } from "./project.js";

let c: RunningSim;
let d: RunningSim;
let dir: string;
const env = { AGENTS_STATE_KEY: "e2e-state-key" };
// What only the built CLI shows runs it as a user does (spawned): the refusal without a terminal,
// --replace through its argument parsing, a saved plan applied from its file. The other steps run
// the CLI's own commands in this process (cli-here.ts), which costs no Node start per step: the
// built CLI's validate, plan, apply, edit, state list and destroy of this same fixture, each with
// its exit code, are `npm run demo`'s engine part (packages/agents/demo/engine-demo.mjs, run by
// scripts/demo.e2e.test.ts).
const run = (...args: string[]) => runCli(args, { cwd: dir, env });
const here = (...args: string[]) => runCliHere(args, { cwd: dir, env });
const RESOURCES = 13;

beforeAll(async () => {
  c = await startSim("provider_c", { quiet: true });
  d = await startSim("provider_d", { quiet: true });
  dir = await makeProject({ c, d });
});
afterAll(async () => {
  await Promise.all([c?.close(), d?.close()]);
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

function expectNoSecret(text: string) {
  for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
}

describe("engine end to end on provider_c and provider_d", () => {
  it("refuses to apply without a terminal or -y, changing nothing", async () => {
    const result = await run("apply");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("refusing to apply without confirmation");
    expect(liveObjects(await simState(c))).toEqual([]);
    expect(liveObjects(await simState(d))).toEqual([]);
  });

  it("plans every resource as a create, then applies them", async () => {
    const plan = await here("plan", "--detailed-exitcode");
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain(
      `Plan (apply): ${RESOURCES} to create, 0 to update, 0 to replace, 0 to delete.`,
    );
    const apply = await here("apply", "-y");
    expect(apply.stderr).toBe("");
    expect(apply.code).toBe(0);
    expect(apply.stdout).toMatch(new RegExp(`Apply complete in [\\d.]+s: ${RESOURCES} created`));
    expect(apply.stdout).toMatch(/provider_c\.agents\["writer-c"\]: created \[[^\]]+\] in [\d.]+s/);
    expectNoSecret(plan.stdout + apply.stdout);
    const stateText = await fs.readFile(join(dir, "agents.state.json"), "utf8");
    expectNoSecret(stateText);
    expect((await fs.stat(join(dir, "agents.state.json"))).mode & 0o777).toBe(0o600);
  });

  it("shows no changes next, reading each resource once", async () => {
    await Promise.all([c, d].map((s) => fetch(`${s.origin}/_sim/log`, { method: "DELETE" })));
    const plan = await here("plan", "--detailed-exitcode");
    expect(plan.stdout).toContain("No changes.");
    expect(plan.code).toBe(0);
    const calls = [...(await requestLog(c)), ...(await requestLog(d))];
    expect(calls.every((call) => call.method === "GET")).toBe(true);
    // One read per resource; a read of a vault also lists its credentials and a store with seeded
    // entries lists its memories (2 vaults + 1 seeded store), and the emulated deployment needs none.
    expect(calls.length).toBeLessThanOrEqual(RESOURCES - 1 + 3);
    const json = JSON.parse((await here("plan", "--json")).stdout) as {
      refresh: { reads: number; failed: number };
    };
    expect(json.refresh).toEqual({ reads: RESOURCES, failed: 0 });
  });

  it("an edit of one field plans exactly that field, and applies", async () => {
    await editConfig(
      dir,
      "    instructions: Write clearly and cite sources.\n    vault: tools-c",
      "    instructions: Write tersely.\n    vault: tools-c",
    );
    const plan = await here("plan", "--json");
    const document = JSON.parse(plan.stdout) as {
      actions: Array<{ address: string; action: string; changes: unknown[] }>;
    };
    const changed = document.actions.filter((a) => a.action !== "noop");
    expect(changed).toEqual([
      expect.objectContaining({
        address: 'provider_c.agents["writer-c"]',
        action: "update",
        changes: [
          {
            path: "instructions",
            before: "Write clearly and cite sources.",
            after: "Write tersely.",
            sensitive: false,
            forcesReplacement: false,
            source: "config",
          },
        ],
      }),
    ]);
    const text = await here("plan");
    expect(text.stdout).toContain('~ instructions: "Write clearly and cite sources." → "Write tersely."');
    const apply = await here("apply", "-y");
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain("1 updated");
    expect((await here("plan", "--detailed-exitcode")).code).toBe(0);
  });

  it("a change made behind our back shows as drift", async () => {
    const state = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));
    const agentId = state.resources['provider_c.agents["writer-c"]'].id as string;
    const headers = {
      "x-api-key": SECRETS.C_API_KEY,
      "anthropic-version": "2023-06-01",
      "anthropic-beta": "managed-agents-2026-04-01",
      "content-type": "application/json",
    };
    const current = (await (await fetch(`${c.url}/agents/${agentId}`, { headers })).json()) as {
      version: number;
    };
    const edited = await fetch(`${c.url}/agents/${agentId}`, {
      method: "POST",
      headers,
      body: JSON.stringify({ version: current.version, system: "Edited in the console." }),
    });
    expect(edited.ok).toBe(true);
    const plan = await here("plan", "--detailed-exitcode");
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain("changed outside agents (drift)");
    expect(plan.stdout).toContain(
      '~ instructions: "Edited in the console." → "Write tersely."  (changed outside agents)',
    );
  });

  it("a saved plan applies exactly, and a stale one is refused", async () => {
    const out = join(dir, "drift.plan.json");
    expect((await here("plan", "--out", out)).code).toBe(0);
    expectNoSecret(await fs.readFile(out, "utf8"));
    const applied = await here("apply", out);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain("1 updated");
    const stale = await here("apply", out);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/the state changed since the plan was saved \(serial \d+ → \d+\)/);
  });

  it("--replace, as the shell passes it, plans a replacement; a bare name is refused with its address", async () => {
    const address = 'provider_c.agents["writer-c"]';
    // Spawned: the flag as a user types it, through the built CLI's own argument parsing.
    const plan = await run("plan", "--replace", address, "--detailed-exitcode");
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toMatch(
      /-\/\+ provider_c\.agents\["writer-c"\] \([^)]+\): replace, replacement asked for with --replace/,
    );
    const bare = await here("apply", "--replace", "writer-c", "-y");
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain(`--replace writer-c: not a resource address`);
    expect(bare.stderr).toContain(`(did you mean ${address}?)`);
  });

  it("destroy removes everything agents created (a saved destroy plan, applied as reviewed)", async () => {
    const out = join(dir, "destroy.plan.json");
    expect((await here("plan", "--destroy", "--out", out)).code).toBe(0);
    const destroy = await run("apply", out);
    expect(destroy.stderr).toBe("");
    expect(destroy.code).toBe(0);
    // provider_d's skill cannot be deleted: it is released from state, and the summary says so.
    expect(destroy.stdout).toMatch(
      new RegExp(`Destroy complete in [\\d.]+s: ${RESOURCES - 1} destroyed, 1 released from state`),
    );
    expect(liveObjects(await simState(c))).toEqual([]);
    // provider_d has no skill delete endpoint (docs/wire/provider-d.md §3.4): skills are the one thing that
    // stays.
    expect(liveObjects(await simState(d)).filter((o) => o.type !== "skill")).toEqual([]);
    const state = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));
    expect(state.resources).toEqual({});
    expect((await here("plan", "--destroy", "--detailed-exitcode")).code).toBe(0);
  });
});
