// provider_a and provider_b (managed delivery) through the CLI's own commands, in-process (e2e/cli-here.ts) against both simulators:
// apply → no changes → one-field edit → destroy leaves nothing of ours behind.
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere as runCli } from "./cli-here.js";
import { copyProject, editConfig, simState, startProviderAInstantUploads } from "./project.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/multi-ab", import.meta.url));
const SECRETS = {
  A_API_KEY: "sim-provider-a-key",
  B_API_KEY: "sim-provider-b-key",
  SEARCH_KEY: "search-ab-e2e-secret-1",
  FORGE_TOKEN: "forge-ab-e2e-secret-2",
};
const RESOURCES = 14;

let a: RunningSim;
let b: RunningSim;
let dir: string;
const run = (...args: string[]) =>
  runCli(args, { cwd: dir, env: { AGENTS_STATE_KEY: "ab-e2e-key" }, timeoutMs: 60_000 });

beforeAll(async () => {
  a = await startProviderAInstantUploads();
  b = await startSim("provider_b", { quiet: true });
  dir = await copyProject(FIXTURE, { ...SECRETS, A_BASE_URL: a.url, B_GATEWAY: b.url }, "agents-ab-e2e-");
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

/**
 * Objects still live in a simulator's top-level collections (not archived or deleted), except
 * what the simulator seeds itself (tunnels, built-in skill catalogs). Uploads and skills count
 * even though they carry no ownership metadata: an orphan upload is a leak too.
 */
function live(dump: unknown): { kind: string; id: string }[] {
  const out: { kind: string; id: string }[] = [];
  for (const [kind, value] of Object.entries(dump as Record<string, unknown>)) {
    if (!Array.isArray(value) || kind === "tunnels" || kind === "mounts") continue;
    for (const o of value as Record<string, unknown>[]) {
      if (typeof o?.id !== "string" || o.archived_at || o.deleted_at || o.status === "archived") continue;
      if (o.source === "official" || o.source === "qoder") continue;
      out.push({ kind, id: o.id });
    }
  }
  return out;
}

function expectNoSecret(text: string) {
  for (const key of ["SEARCH_KEY", "FORGE_TOKEN"] as const) expect(text).not.toContain(SECRETS[key]);
}

describe("engine end to end on provider_a and provider_b", () => {
  it("applies every resource", async () => {
    const apply = await run("apply", "-y");
    expect(apply.stderr).toBe("");
    expect(apply.code).toBe(0);
    expect(apply.stdout).toMatch(new RegExp(`Apply complete in [\\d.]+s: ${RESOURCES} created`));
    expectNoSecret(apply.stdout + (await fs.readFile(join(dir, "agents.state.json"), "utf8")));
    // The check destroy relies on sees what apply made (incl. uploads without metadata).
    expect(live(await simState(a)).map((o) => o.kind)).toEqual(
      expect.arrayContaining(["environments", "vaults", "files", "skills", "agents", "deployments"]),
    );
    expect(live(await simState(b)).length).toBeGreaterThanOrEqual(10);
  });

  it("plans no changes right after", async () => {
    const plan = await run("plan", "--detailed-exitcode");
    expect(plan.stdout).toContain("No changes.");
    expect(plan.code).toBe(0);
  });

  it("an edit of one field plans exactly that field and applies", async () => {
    await editConfig(dir, "instructions: Write clearly.", "instructions: Write tersely.");
    const plan = await run("plan", "--json");
    const changed = (
      JSON.parse(plan.stdout) as { actions: { address: string; action: string }[] }
    ).actions.filter((x) => x.action !== "noop");
    expect(changed).toEqual([
      expect.objectContaining({ address: 'provider_b.agents["writer-b"]', action: "update" }),
    ]);
    const apply = await run("apply", "-y");
    expect(apply.code).toBe(0);
    expect((await run("plan", "--detailed-exitcode")).code).toBe(0);
  });

  it("destroy removes everything it created", async () => {
    const destroy = await run("destroy", "-y");
    expect(destroy.stderr).toBe("");
    expect(destroy.code).toBe(0);
    expect(live(await simState(a))).toEqual([]);
    expect(live(await simState(b))).toEqual([]);
  });
});
