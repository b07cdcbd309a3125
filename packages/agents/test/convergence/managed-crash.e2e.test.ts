// Crash and drift rows for the vaults and files of the managed dialect (provider_c, provider_d),
// in-process against the simulators (the crash row on the file state and on PostgreSQL, hence
// *.e2e.test.ts: the postgres rows need the test services):
// - a provider_d file whose upload's answer was lost (the provider made it, the client never
//   learned its id): files carry no ownership metadata, their upload is journaled, so the next
//   apply adopts it, never a second one; destroy then leaves nothing. (provider_c has no top-level
//   files.) A lost vault create on both providers and a lost file replacement upload are rows of
//   the kill matrix (kill-matrix.e2e.test.ts), through apply, replacement and destroy.
// - a vault credential deleted outside agents: presence is compared, so plan shows it and apply
//   restores it (secret values are never read back; only names and shown fields).
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removedAfterAll, setFaults, simState } from "../e2e/project.js";
import { describeEachStateBackend } from "../state/each-backend.js";
import { inProcessProject } from "./in-process.js";
import { KEYS, wireHeaders } from "./rows.js";

type Provider = "provider_c" | "provider_d";
type Kind = "vaults" | "files";

const PROVIDERS: Provider[] = ["provider_c", "provider_d"];
const SECRET = "managed-crash-secret-5518";

const BODY: Record<Kind, string> = {
  vaults: `vaults:
  keys:
    credentials:
      - name: one
        type: environment_variable
        secret_name: ONE
        secret_value: \${SECRET}
`,
  files: `files:
  notes:
    source: data/notes.md
`,
};

const yaml = (provider: Provider, kind: Kind) =>
  `version: "1"\nproviders:\n  ${provider}:\n    api_key: \${API_KEY}\n    base_url: \${URL}\n${BODY[kind]}`;

const sims = new Map<Provider, RunningSim>();
const dirs = removedAfterAll();

beforeAll(async () => {
  for (const p of PROVIDERS) sims.set(p, await startSim(p, { quiet: true }));
});
afterAll(async () => {
  await Promise.all([...sims.values()].map((s) => s.close()));
});

interface Dump {
  vaults?: Array<Record<string, unknown>>;
  credentials?: Array<Record<string, unknown>>;
  files?: Array<Record<string, unknown>>;
}

const live = (o: Record<string, unknown>) => !o.archived_at && !o.deleted_at && o.status !== "archived";

/** The simulator's live objects of `kind`; for vaults, each with the names of its credentials. */
async function remote(sim: RunningSim, kind: Kind): Promise<Array<{ id: string; credentials: string[] }>> {
  const dump = (await simState(sim)) as Dump;
  return (dump[kind] ?? []).filter(live).map((o) => ({
    id: String(o.id),
    credentials: (dump.credentials ?? [])
      .filter((c) => c.vault_id === o.id && live(c))
      .map((c) => String(c.display_name)),
  }));
}

async function project(provider: Provider, kind: Kind, name: string, state: Record<string, string> = {}) {
  const sim = sims.get(provider)!;
  await fetch(`${sim.origin}/_sim/reset`, { method: "POST" });
  const dir = mkdtempSync(join(tmpdir(), `agents-${name}-`));
  dirs.push(dir);
  const env = { API_KEY: KEYS[provider], URL: sim.url, SECRET };
  await fs.writeFile(
    join(dir, ".env"),
    Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join("\n"),
  );
  await fs.writeFile(join(dir, "agents.yaml"), yaml(provider, kind));
  const notes = join(dir, "data/notes.md");
  await fs.mkdir(dirname(notes), { recursive: true });
  await fs.writeFile(notes, "# Notes\n\nKeep them short.\n");
  return { sim, dir, agents: inProcessProject(dir, { AGENTS_STATE_KEY: `${name}-key`, ...state }) };
}

/** One object of `kind`, (a vault) holding its declared credential; a clean plan; none after destroy. */
async function expectSettled(
  sim: RunningSim,
  kind: Kind,
  agents: ReturnType<typeof inProcessProject>,
  label: string,
) {
  const objects = await remote(sim, kind);
  expect(objects, `${label}: exactly one ${kind}`).toHaveLength(1);
  if (kind === "vaults") expect(objects[0]!.credentials, `${label}: its credential`).toEqual(["one"]);
  const plan = await agents.plan();
  expect(plan.code, `${label}: plan\n${plan.text}${plan.error}`).toBe(0);
  expect(plan.plan!.actions.map((a) => a.remoteId)).toEqual(objects.map((o) => o.id));
  const destroyed = await agents.destroy();
  expect(destroyed.code, destroyed.text + destroyed.error).toBe(0);
  expect(await remote(sim, kind), `${label}: left after destroy`).toEqual([]);
}

const LOST_CREATES: Array<{ provider: Provider; kind: Kind; path: string }> = [
  { provider: "provider_d", kind: "files", path: "/files$" },
];

describe("a vault credential deleted outside agents", () => {
  it.each(PROVIDERS)("%s: plan shows it, apply restores it", async (provider) => {
    const { sim, agents } = await project(provider, "vaults", "cred-gone");
    const first = await agents.apply();
    expect(first.code, first.text + first.error).toBe(0);
    const dump = (await simState(sim)) as Dump;
    const [credential] = (dump.credentials ?? []).filter(live);
    const response = await fetch(`${sim.url}/vaults/${credential!.vault_id}/credentials/${credential!.id}`, {
      method: "DELETE",
      headers: wireHeaders(provider),
    });
    expect(response.status).toBe(200);

    const plan = await agents.plan();
    expect(plan.code, plan.text + plan.error).toBe(2);
    expect(plan.text).toContain("credentials");
    expect(plan.text).not.toContain(SECRET);
    const again = await agents.apply();
    expect(again.code, again.text + again.error).toBe(0);
    await expectSettled(sim, "vaults", agents, provider);
  });
});

// The journal that makes adoption possible lives in the state backend: both are driven.
describeEachStateBackend(
  (backend) => `${backend} state`,
  (state, backend) => {
    describe(`a create whose answer was lost (${backend} state)`, () => {
      it.each(LOST_CREATES)(
        "$provider $kind: the next apply adopts it whole, destroy removes it",
        async (row) => {
          const { sim, agents } = await project(row.provider, row.kind, `lost-${row.kind}`, state);
          await setFaults(sim, {
            rules: [{ method: "POST", path: row.path, nth: 1, action: { type: "drop_response" } }],
          });
          const broken = await agents.apply();
          await setFaults(sim, {});
          expect(broken.code, broken.text).toBe(1);
          expect(await remote(sim, row.kind), "the lost create made the object").toHaveLength(1);

          const plan = await agents.plan();
          expect(plan.plan!.actions.map((a) => a.action)).toEqual(["adopt"]);
          const again = await agents.apply();
          expect(again.code, again.text + again.error).toBe(0);
          await expectSettled(sim, row.kind, agents, `${row.provider} ${row.kind}`);
        },
      );
    });
  },
);
