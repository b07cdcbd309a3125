// The create half of a create-before-destroy replacement, on every provider that replaces a vault
// that way: its create is journaled like a plain create, so when its answer is lost (the provider
// made the new vault, the client never learned its id) the next apply adopts that vault as the
// replacement, and the old one is removed: one vault, the one state names, none after destroy.
// (provider_c updates vaults in place; provider_b's rows are in b-crash.e2e.test.ts, and on
// PostgreSQL in the kill matrix's provider_b forced replacement.)
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removedAfterAll, SECRETS, setFaults, simState } from "../e2e/project.js";
import { inProcessProject } from "./in-process.js";

type Provider = "provider_a" | "provider_d";

const BLOCKS: Record<Provider, string> = {
  provider_a: "    api_key: ${A_API_KEY}\n    workspace_id: llm-replace\n    base_url: ${URL}",
  provider_d: "    api_key: ${D_API_KEY}\n    base_url: ${URL}",
};

/** `secretName` is the change: a credential change replaces the vault on these providers. */
const yaml = (provider: Provider, secretName: string) => `version: "1"
providers:
  ${provider}:
${BLOCKS[provider]}
vaults:
  keys:
    credentials:
      - name: one
        type: environment_variable
        secret_name: ${secretName}
        secret_value: \${SECRET}
`;

const ROWS: Provider[] = ["provider_a", "provider_d"];
const sims = new Map<Provider, RunningSim>();
const dirs = removedAfterAll();

beforeAll(async () => {
  for (const p of ROWS) sims.set(p, await startSim(p, { quiet: true }));
});
afterAll(async () => {
  await Promise.all([...sims.values()].map((s) => s.close()));
});

/** The simulator's live vaults (not archived, not deleted). */
async function liveVaults(sim: RunningSim): Promise<string[]> {
  const dump = (await simState(sim)) as { vaults?: Array<Record<string, unknown>> };
  return (dump.vaults ?? [])
    .filter((v) => !v.archived_at && !v.deleted_at && v.status !== "archived")
    .map((v) => String(v.id));
}

/** A project of one vault on the provider's simulator, applied; `old` is that vault's id. */
async function appliedVault(provider: (typeof ROWS)[number], name: string) {
  const sim = sims.get(provider)!;
  const dir = mkdtempSync(join(tmpdir(), `agents-${name}-`));
  dirs.push(dir);
  const env = {
    A_API_KEY: "sim-provider-a-key",
    D_API_KEY: SECRETS.D_API_KEY,
    URL: sim.url,
    SECRET: `${name}-secret`,
  };
  await fs.writeFile(
    join(dir, ".env"),
    Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join("\n"),
  );
  await fs.writeFile(join(dir, "agents.yaml"), yaml(provider, "ONE"));
  const agents = inProcessProject(dir, { AGENTS_STATE_KEY: `${name}-key` });
  const first = await agents.apply();
  expect(first.code, first.text + first.error).toBe(0);
  const [old] = await liveVaults(sim);
  return { sim, dir, agents, old };
}

// provider_a's row, on both state backends, is the kill matrix's replace phase
// (kill-matrix.e2e.test.ts).
describe("a vault replacement whose new vault's create lost its response", () => {
  it.each(["provider_d"] as const)(
    "%s: the next apply adopts the new vault and removes the old one",
    async (provider) => {
      const { sim, dir, agents, old } = await appliedVault(provider, "replace-crash");

      await fs.writeFile(join(dir, "agents.yaml"), yaml(provider, "ONE_RENAMED"));
      await setFaults(sim, {
        rules: [{ method: "POST", path: "/vaults$", nth: 1, action: { type: "drop_response" } }],
      });
      const broken = await agents.apply();
      await setFaults(sim, {});
      expect(broken.code, broken.text).toBe(1);
      expect(await liveVaults(sim), "the lost create made the new vault").toHaveLength(2);

      const again = await agents.apply();
      expect(again.code, again.text + again.error).toBe(0);
      expect(again.text).toContain("the replacement an interrupted run created");
      const vaults = await liveVaults(sim);
      expect(vaults).toHaveLength(1);
      expect(vaults[0]).not.toBe(old);
      const plan = await agents.plan();
      expect(plan.code, plan.text).toBe(0);
      expect(plan.plan!.actions.map((a) => a.remoteId)).toEqual(vaults);
      expect((await agents.destroy()).code).toBe(0);
      expect(await liveVaults(sim)).toEqual([]);
    },
  );
});

describe("a vault replacement cut after the new vault was recorded, before the old one was removed", () => {
  it.each(ROWS)("%s: the next apply removes the old vault", async (provider) => {
    const { sim, dir, agents, old } = await appliedVault(provider, "replace-cut");

    // The old vault's removal is refused (400, never retried): the run ends where a kill between
    // recording the new vault and removing the old one would leave it.
    await fs.writeFile(join(dir, "agents.yaml"), yaml(provider, "ONE_RENAMED"));
    await setFaults(sim, {
      rules: [{ method: "DELETE", path: `/vaults/${old}$`, action: { type: "status", status: 400 } }],
    });
    const broken = await agents.apply();
    await setFaults(sim, {});
    expect(broken.code, broken.text).toBe(1);
    expect(broken.text + broken.error).toContain("the next apply removes it");
    expect(await liveVaults(sim)).toHaveLength(2);

    const again = await agents.apply();
    expect(again.code, again.text + again.error).toBe(0);
    expect(again.text).toContain(`removes ${old}, the object an interrupted replacement recorded`);
    const vaults = await liveVaults(sim);
    expect(vaults).toHaveLength(1);
    expect(vaults[0]).not.toBe(old);
    const plan = await agents.plan();
    expect(plan.code, plan.text).toBe(0);
    expect(plan.plan!.actions.map((a) => [a.action, a.remoteId])).toEqual([["noop", vaults[0]]]);
    expect((await agents.destroy()).code).toBe(0);
    expect(await liveVaults(sim)).toEqual([]);
  });
});
