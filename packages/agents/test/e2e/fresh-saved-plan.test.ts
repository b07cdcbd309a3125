// A plan saved before the first apply (`agents plan --out` on a project whose state does not exist
// yet) applies while the state is still absent, and is refused once someone applied in between
// (docs/state.md §Saved plans before the first apply). The CLI's own commands run in-process
// (./cli-here.ts) on a project made by `agents init`, against the provider_c simulator, with the
// state in a file and in PostgreSQL.
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeWith } from "../../../../scripts/test-services.js";
import { type PgServer, testPostgres } from "../state/pg-server.js";
import { runCliHere } from "./cli-here.js";
import { removedAfterAll, simulatorForFile } from "./project.js";

const KEY = "sim-provider-c-key";
const STALE = "error: the saved plan was made for a different state (lineage ";

const c = simulatorForFile("provider_c");
const dirs = removedAfterAll();

/** A new project from `agents init`, its `.env` pointing at the simulator, `stateBlock` appended. */
async function freshProject(stateBlock: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "agents-fresh-plan-"));
  dirs.push(dir);
  const init = await runCliHere(["init", "--provider", "provider_c", "--agent", "helper", "--dir", dir], {
    cwd: dir,
  });
  expect(init.code, init.stderr).toBe(0);
  await fs.writeFile(join(dir, ".env"), `PROVIDER_C_API_KEY=${KEY}\nAGENTS_BASE_URL_PROVIDER_C=${c.url}\n`);
  if (stateBlock) await fs.appendFile(join(dir, "agents.yaml"), `\n${stateBlock}`);
  return dir;
}

/** Every case on one backend: `stateBlock` names a state nobody wrote yet. */
function savedPlanCases(stateBlock: () => string, env: () => NodeJS.ProcessEnv) {
  const cli = (dir: string, ...args: string[]) => runCliHere(args, { cwd: dir, env: env() });

  it("plan --out then apply: the new state takes the plan's identity, the next plan is clean", async () => {
    const dir = await freshProject(stateBlock());
    const out = join(dir, "p.plan");
    // A file that was there, readable by others, is replaced by one only its owner reads.
    await fs.writeFile(out, "", { mode: 0o644 });
    const planned = await cli(dir, "plan", "--out", out);
    expect(planned.code, planned.stderr).toBe(0);
    // What is printed never carries the new state's hash key.
    const json = await cli(dir, "plan", "--json");
    expect(json.stdout).not.toContain("newState");

    const applied = await cli(dir, "apply", out);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/Apply complete in [\d.]+s: \d+ created/);
    // The file carries it, and is kept to its owner like a state file.
    const saved = JSON.parse(await fs.readFile(out, "utf8"));
    expect(saved.newState.hashKey).toMatch(/^[0-9a-f]{64}$/);
    expect((await fs.stat(out)).mode & 0o777).toBe(0o600);
    expect(await fs.readFile(out, "utf8")).not.toContain(KEY);
    const pulled = await cli(dir, "state", "pull");
    expect(pulled.code, pulled.stderr).toBe(0);
    const state = JSON.parse(pulled.stdout);
    expect(state.lineage).toBe(saved.state.lineage);
    expect(state.hashKey).toBe(saved.newState.hashKey);
    const clean = await cli(dir, "plan", "--detailed-exitcode");
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    expect(clean.stdout).toContain("No changes.");
    // Applied once, the plan is stale.
    const again = await cli(dir, "apply", out);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("the state changed since the plan was saved (serial 0 → ");
  }, 30_000);

  it("someone applies between plan --out and apply: the saved plan is refused, nothing changes", async () => {
    const dir = await freshProject(stateBlock());
    const out = join(dir, "p.plan");
    expect((await cli(dir, "plan", "--out", out)).code).toBe(0);
    // A destroy plan saved on the absent state applies too (nothing to do, nothing written).
    const gone = join(dir, "destroy.plan");
    expect((await cli(dir, "plan", "--destroy", "--out", gone)).code).toBe(0);
    const noop = await cli(dir, "apply", gone);
    expect(noop.code, noop.stderr).toBe(0);
    expect(noop.stdout).toContain("No changes.");
    const other = await cli(dir, "apply", "-y");
    expect(other.code, other.stderr).toBe(0);
    const before = (await cli(dir, "state", "pull")).stdout;

    const refused = await cli(dir, "apply", out);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(STALE);
    expect(refused.stderr).toContain("run agents plan again");
    expect((await cli(dir, "state", "pull")).stdout).toBe(before);
  }, 30_000);
}

describe("a plan saved before the first apply, state in a file", () => {
  savedPlanCases(
    () => "",
    () => ({}),
  );
});

describeWith("postgresql")("a plan saved before the first apply, state in PostgreSQL", () => {
  let server: PgServer | undefined;
  let n = 0;
  beforeAll(async () => {
    server = await testPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  savedPlanCases(
    () => {
      n += 1;
      return `state:\n  backend: postgres\n  url: \${AGENTS_STATE_URL}\n  workspace: fresh${n}\n`;
    },
    () => ({ AGENTS_STATE_URL: server!.url }),
  );
});
