// Issue 38 item 1: a lost or emptied state never doubles the project. After an apply, the state
// file is deleted (or emptied: a valid state that records nothing); plan must show every
// declared resource as `adopt` (found by this project's ownership markers) and none as `create`,
// and the next apply must leave exactly one object per address on the simulator. One row per
// provider, several kinds each, the CLI's commands against the simulators: in the test's process
// (./cli-here.ts) but for one row and the refusal, which spawn the real CLI as a user runs it (a
// spawned CLI costs about a second a step on two cores; the rows' point is what the commands do).
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunningSim } from "@agents/sims";
import { describe, expect, it } from "vitest";
import { type CliResult, runCli } from "./cli.js";
import { runCliHere } from "./cli-here.js";
import { liveObjects, removedAfterAll, simState, simulatorForFile } from "./project.js";

const dirs = removedAfterAll();
const sims = {
  provider_a: simulatorForFile("provider_a"),
  provider_b: simulatorForFile("provider_b"),
  provider_c: simulatorForFile("provider_c"),
  provider_d: simulatorForFile("provider_d"),
};
type Provider = keyof typeof sims;

const ENV = {
  A_API_KEY: "sim-provider-a-key",
  B_API_KEY: "sim-provider-b-key",
  C_API_KEY: "sim-provider-c-key",
  D_API_KEY: "sim-provider-d-key",
  SEARCH_KEY: "lost-state-search-key",
  AGENTS_STATE_KEY: "lost-state-key",
};

/** The provider's block and the model its agents use. */
const PROVIDERS: Record<Provider, { block: (sim: RunningSim) => string[]; model: string; stores: boolean }> =
  {
    provider_a: {
      block: (s) => [
        "  provider_a:",
        "    api_key: ${A_API_KEY}",
        "    workspace_id: llm-lost",
        `    base_url: ${s.url}`,
      ],
      model: "qwen-max",
      stores: false,
    },
    provider_b: {
      block: (s) => ["  provider_b:", "    api_key: ${B_API_KEY}", `    gateway: ${s.url}`],
      model: "auto",
      stores: true,
    },
    provider_c: {
      block: (s) => ["  provider_c:", "    api_key: ${C_API_KEY}", `    base_url: ${s.url}`],
      model: "claude-sonnet-4-5",
      stores: true,
    },
    provider_d: {
      block: (s) => ["  provider_d:", "    api_key: ${D_API_KEY}", `    base_url: ${s.url}`],
      model: "doubao-seed-1-6",
      stores: true,
    },
  };

/** Environments, vaults (with a credential), memory stores where the provider has them, agents. */
function config(provider: Provider, wide: boolean): { yaml: string; addresses: string[] } {
  const p = PROVIDERS[provider];
  const lines = ['version: "1"', "providers:", ...p.block(sims[provider])];
  const addresses: string[] = [];
  const section = (kind: string, names: string[], body: (name: string) => string[]) => {
    lines.push(`${kind}:`);
    for (const name of names) {
      lines.push(`  ${name}:`, `    provider: ${provider}`, ...body(name).map((l) => `    ${l}`));
      addresses.push(`${provider}.${kind}["${name}"]`);
    }
  };
  // Wide: enough environments and agents that plan lists the kind once instead of a lookup each.
  const names = (two: string[], prefix: string) =>
    wide ? Array.from({ length: 8 }, (_, i) => `${prefix}-${i}`) : two;
  section("environments", names(["sandbox", "build"], "env"), () => ["config:", "  type: cloud"]);
  section("vaults", ["keys"], () => [
    "credentials: [{name: search, type: environment_variable, secret_name: SEARCH_KEY, secret_value: '${SEARCH_KEY}'}]",
  ]);
  if (p.stores) section("memory_stores", ["notes"], () => ["description: Team notes"]);
  section("agents", names(["writer", "reviewer"], "agent"), (name) => [
    `model: ${p.model}`,
    `instructions: You are the ${name}.`,
  ]);
  return { yaml: `${lines.join("\n")}\n`, addresses };
}

/** Live objects on the simulator by the address their ownership markers name. */
async function ownedByAddress(sim: RunningSim): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const o of liveObjects(await simState(sim))) {
    const address = o.metadata?.["agents.resource"];
    if (!address) continue;
    out.set(address, [...(out.get(address) ?? []), o.id]);
  }
  return out;
}

async function project(provider: Provider, wide = false): Promise<{ dir: string; addresses: string[] }> {
  await fetch(`${sims[provider].origin}/_sim/reset`, { method: "POST" });
  const dir = mkdtempSync(join(tmpdir(), `agents-lost-${provider}-`));
  dirs.push(dir);
  const { yaml, addresses } = config(provider, wide);
  await fs.writeFile(join(dir, "agents.yaml"), yaml);
  await fs.writeFile(
    join(dir, ".env"),
    `${Object.entries(ENV)
      .map(([k, v]) => `${k}=${v}`)
      .join("\n")}\n`,
  );
  return { dir, addresses };
}

const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const spawned = (dir: string, ...args: string[]) => runCli(args, { cwd: dir, timeoutMs: 60_000 });
const here = (dir: string, ...args: string[]) => runCliHere(args, { cwd: dir });

/** How the state is lost: the file deleted, or emptied to a state that records nothing. */
const LOSSES = {
  deleted: (path: string) => fs.rm(path),
  emptied: async (path: string) => {
    const state = JSON.parse(await fs.readFile(path, "utf8"));
    await fs.writeFile(path, JSON.stringify({ ...state, resources: {}, pending: {} }, null, 2));
  },
};

// Every provider takes both paths of the lookup (one walk per create; the kind listed once for
// many creates) and both losses, crossed in two rows rather than four: the loss only decides what
// the state file holds, which no provider sees, so the four-way product would spend spawned-CLI
// time (about 2 s a row) proving the same code twice. One row (provider_c, the file deleted) runs
// the spawned CLI end to end; the others run the same commands in the test's process.
const ROWS = (Object.keys(sims) as Provider[]).flatMap((provider) => [
  { provider, loss: "deleted" as const, wide: true, cli: provider === "provider_c" ? "spawned" : "here" },
  { provider, loss: "emptied" as const, wide: false, cli: "here" },
]);

describe("a lost state adopts what this project owns, never creates it again", () => {
  it.each(ROWS)("$provider, state $loss, wide $wide, CLI $cli", async ({ provider, loss, wide, cli }) => {
    const run: (dir: string, ...args: string[]) => Promise<CliResult> = cli === "spawned" ? spawned : here;
    const { dir, addresses } = await project(provider, wide);
    const first = await run(dir, "apply", "--auto-approve");
    expect(first.code, first.stderr).toBe(0);
    const before = await ownedByAddress(sims[provider]);
    for (const address of addresses) expect(before.get(address), address).toHaveLength(1);

    await LOSSES[loss](join(dir, "agents.state.json"));
    const plan = await run(dir, "plan");
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain("0 to create");
    expect(plan.stdout).toContain(`${addresses.length} to adopt`);
    for (const address of addresses)
      expect(plan.stdout, address).toMatch(new RegExp(`${literally(address)} \\([^)]+\\): adopt`));

    const second = await run(dir, "apply", "--auto-approve");
    expect(second.code, second.stderr).toBe(0);
    const after = await ownedByAddress(sims[provider]);
    for (const address of addresses) expect(after.get(address), address).toEqual(before.get(address));
    expect(after.size).toBe(addresses.length);
    // What was adopted is recorded as it is: the next plan has nothing to do.
    const settled = await run(dir, "plan", "--detailed-exitcode");
    expect(settled.code, settled.stdout + settled.stderr).toBe(0);
  });

  it("two owned objects for one address: plan refuses and names both with agents import, creating nothing", async () => {
    const { dir } = await project("provider_c");
    expect((await here(dir, "apply", "--auto-approve")).code).toBe(0);
    const address = 'provider_c.environments["sandbox"]';
    const [recorded] = (await ownedByAddress(sims.provider_c)).get(address)!;
    const owner = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8")).project as string;
    const response = await fetch(`${sims.provider_c.url}/environments`, {
      method: "POST",
      headers: {
        "x-api-key": ENV.C_API_KEY,
        "anthropic-version": "2023-06-01",
        "anthropic-beta": "managed-agents-2026-04-01",
        "content-type": "application/json",
      },
      body: JSON.stringify({
        name: "sandbox-copy",
        config: { type: "cloud" },
        metadata: { "agents.project": owner, "agents.resource": address },
      }),
    });
    expect(response.ok).toBe(true);
    const copy = ((await response.json()) as { id: string }).id;
    await fs.rm(join(dir, "agents.state.json"));
    const before = liveObjects(await simState(sims.provider_c)).length;

    // The apply spawned: the refusal is one line and a hint, never a stack trace, as a user's
    // terminal shows it. The plan refuses in the same words (the apply plans first), in-process.
    for (const [run, command] of [
      [here, ["plan"]],
      [spawned, ["apply", "--auto-approve"]],
    ] as const) {
      const refused = await run(dir, ...command);
      expect(refused.code, command.join(" ")).not.toBe(0);
      expect(refused.stderr).toContain(address);
      for (const id of [recorded, copy]) expect(refused.stderr).toContain(id);
      expect(refused.stderr).toMatch(/agents import 'provider_c\.environments\["sandbox"\]' (env_\w+)/);
      expect(refused.stderr).not.toMatch(/\n\s+at /);
    }
    expect(liveObjects(await simState(sims.provider_c))).toHaveLength(before);
  });
});
