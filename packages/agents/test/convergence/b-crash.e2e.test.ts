// Crash safety on provider_b, every kind it creates on its Managed and its Forward API: the first
// create of one endpoint loses its response (the provider made the object, the client never
// learns its id, as when the process dies mid-request), and the next apply must adopt it. The
// property, per kind: the re-run succeeds, a plan after it is clean, the remote holds exactly the
// objects state names (no duplicate, no orphan), and destroy leaves nothing of the project behind.
// Runs on the state file, every step in-process (nothing needs the build). What PostgreSQL does
// with a run whose create answers were lost (its journal rows kept, replayed and adopted by the
// next run) is the kill matrix's (kill-matrix.e2e, postgres state: provider_b's apply and forced
// replacement lose the answers of vault and Template creates, the replacement's new vault among
// them); how each kind is found again does not depend on the backend. Also: a create
// that conflicts with another project's object (provider_b and provider_a, every kind whose name
// is unique) is never adopted, and its error names `agents import`.
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  copyProject,
  removedAfterAll,
  requestLog,
  setFaults,
  simState,
  simulatorForFile,
} from "../e2e/project.js";
import { type InProcessProject, inProcessProject } from "./in-process.js";

const FIXTURE = fileURLToPath(new URL("../e2e/fixtures/crash-b", import.meta.url));

const B = (kind: string, name: string) => `provider_b.${kind}["${name}"]`;

/**
 * One row per create endpoint: the first such POST is served and its answer dropped (the object
 * exists, the client never learns its id). `address`: the resource whose journaled create the next
 * run adopts; rows without one are calls inside a create (a credential, a seed) that fail it.
 */
const CREATES: Array<{ kind: string; path: string; address?: string }> = [
  { kind: "managed environment", path: "/cloud/environments$", address: B("environments", "m-env") },
  { kind: "forward environment", path: "/forward/environments$", address: B("environments", "f-env") },
  { kind: "managed vault", path: "/cloud/vaults$", address: B("vaults", "m-keys") },
  { kind: "forward vault", path: "/forward/vaults$", address: B("vaults", "f-keys") },
  { kind: "vault credential", path: "/cloud/vaults/[^/]+/credentials$" },
  { kind: "managed skill", path: "/cloud/skills$", address: B("skills", "charts") },
  { kind: "forward skill", path: "/forward/skills$", address: B("skills", "triage") },
  { kind: "managed memory store", path: "/cloud/memory_stores$", address: B("memory_stores", "m-notes") },
  // Sent with an Idempotency-Key: the client's own retry gets the answer replayed, nothing to adopt.
  { kind: "forward memory store", path: "/forward/memory_stores$" },
  { kind: "memory seed", path: "/memory_stores/[^/]+/memories$" },
  { kind: "managed agent", path: "/cloud/agents$", address: B("agents", "writer") },
  { kind: "template (forward agent)", path: "/forward/templates$", address: B("agents", "concierge") },
  { kind: "deployment", path: "/cloud/deployments$", address: B("deployments", "nightly") },
  { kind: "identity", path: "/forward/identities$", address: B("identities", "alice") },
  // The pairing channel depends on nothing, so it is the first channel sent.
  { kind: "channel", path: "/forward/channels$", address: B("channels", "lobby") },
];

const SECRETS = {
  B_API_KEY: "sim-provider-b-key",
  SECRET_ONE: "crash-b-secret-one",
  SECRET_TWO: "crash-b-secret-two",
  DESK_ID: "desk-client-id",
  DESK_SECRET: "desk-client-secret",
  LOBBY_ID: "lobby-app-id",
  LOBBY_SECRET: "lobby-app-secret",
};

/** The simulator's collections of objects a user sees (histories, mounts and tunnels aside). */
const OBJECT_KINDS = [
  "environments",
  "vaults",
  "credentials",
  "skills",
  "files",
  "memory_stores",
  "memories",
  "agents",
  "templates",
  "deployments",
  "identities",
  "channels",
];

const b = simulatorForFile("provider_b");
const dirs = removedAfterAll();

/** A copy of the fixture wired to the simulator, emptied first unless `reset` is false. */
async function freshProject(reset = true): Promise<string> {
  if (reset) await fetch(`${b.origin}/_sim/reset`, { method: "POST" });
  const dir = await copyProject(FIXTURE, { ...SECRETS, B_GATEWAY: b.url }, "agents-crash-b-");
  dirs.push(dir);
  return dir;
}

interface LiveObject {
  id: string;
  kind: string;
  name?: string;
  parent?: string;
}

/** Live objects the project made, by simulator collection (credentials, memories and mounts aside). */
async function liveObjects(): Promise<LiveObject[]> {
  const dump = (await simState(b)) as Record<string, unknown>;
  const out: LiveObject[] = [];
  for (const [kind, value] of Object.entries(dump)) {
    if (!OBJECT_KINDS.includes(kind)) continue;
    for (const o of (value as Record<string, unknown>[] | undefined) ?? []) {
      if (typeof o?.id !== "string" || o.archived_at || o.deleted_at || o.status === "archived") continue;
      if (o.source === "official" || o.source === "qoder") continue;
      out.push({
        id: o.id,
        kind,
        name: (o.name ?? o.display_name ?? o.display_title) as string | undefined,
        parent: (o.vault_id ?? o.memory_store_id ?? o.store_id) as string | undefined,
      });
    }
  }
  return out;
}

/** Converged: a clean plan, the remote holds exactly what state names, destroy leaves nothing. */
async function expectConvergedAndDestroyed(agents: InProcessProject, label: string): Promise<void> {
  const plan = await agents.plan();
  expect(plan.code, `${label}: ${plan.text}`).toBe(0);
  const objects = await liveObjects();
  const top = objects.filter((o) => o.kind !== "credentials" && o.kind !== "memories");
  const ids = new Set(plan.plan!.actions.map((a) => a.remoteId));
  for (const o of top) expect(ids.has(o.id), `${label}: orphan ${o.kind} ${o.id} (${o.name})`).toBe(true);
  expect(top.length, `${label}: duplicates ${JSON.stringify(top)}`).toBe(plan.plan!.actions.length);
  // Credentials and seeds: exactly the declared ones, none left by a half-made vault or store.
  const credentials = objects.filter((o) => o.kind === "credentials");
  expect(credentials.length, `${label}: ${JSON.stringify(credentials)}`).toBe(3);
  for (const c of credentials) expect(ids.has(c.parent), `${label}: credential of ${c.parent}`).toBe(true);
  expect(objects.filter((o) => o.kind === "memories").length, label).toBe(2);

  const destroyed = await agents.destroy();
  expect(destroyed.code, `${label}: ${destroyed.text}\n${destroyed.error}`).toBe(0);
  const left = (await liveObjects()).filter((o) => o.kind !== "credentials" && o.kind !== "memories");
  expect(left, `${label}: left after destroy`).toEqual([]);
}

/** A folder holding `yaml` as agents.yaml (skills copied from the fixture) and the `.env`. */
async function smallProject(yaml: string, reset = true): Promise<string> {
  const dir = await freshProject(reset);
  await fs.writeFile(join(dir, "agents.yaml"), yaml);
  return dir;
}

const VAULT_YAML = (url: string) => `version: "1"
providers:
  provider_b:
    api_key: \${B_API_KEY}
    gateway: \${B_GATEWAY}
vaults:
  keys:
    credentials:
      - name: one
        type: environment_variable
        secret_name: ONE
        secret_value: \${SECRET_ONE}
      - name: forge
        type: static_bearer
        mcp_server_url: ${url}
        access_token: \${SECRET_TWO}
`;

/** The provider_b simulator's API, as a client outside agents would call it. */
async function callB(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${b.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${SECRETS.B_API_KEY}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.ok, `${method} ${path}: ${response.status}`).toBe(true);
  return (await response.json()) as Record<string, unknown>;
}

async function liveVaults(): Promise<Array<{ id: string; credentials: string[] }>> {
  const objects = await liveObjects();
  return objects
    .filter((o) => o.kind === "vaults")
    .map((v) => ({
      id: v.id,
      credentials: objects.filter((c) => c.kind === "credentials" && c.parent === v.id).map((c) => c.id),
    }));
}

describe("crash safety on provider_b, every kind (file state)", () => {
  const env: Record<string, string> = { AGENTS_STATE_KEY: "crash-b-key" };

  it("adopts every kind whose first create lost its response, and converges", async () => {
    const dir = await freshProject();
    const agents = inProcessProject(dir, env);
    // Every row at once: a dependent's create is first sent in the run after its dependencies
    // were adopted, so its own rule fires then. The rules stay until every one has fired.
    await setFaults(b, {
      rules: CREATES.map(({ path }) => ({
        method: "POST",
        path,
        nth: 1,
        action: { type: "drop_response" },
      })),
    });
    await fetch(`${b.origin}/_sim/log`, { method: "DELETE" });
    let last = { code: 1, text: "", error: "" };
    for (let run = 1; run <= 5 && last.code !== 0; run++) last = await agents.apply();
    await setFaults(b, {});
    expect(last.code, `${last.text}\n${last.error}`).toBe(0);
    const texts = agents.texts.join("\n");
    expect(texts).not.toMatch(/crash-b-secret|desk-client-secret|lobby-app-secret/);
    const dropped = (await requestLog(b)).filter((e) => (e as { fault?: string }).fault);
    for (const row of CREATES) {
      const hit = dropped.filter((e) => e.method === "POST" && new RegExp(row.path).test(e.path));
      expect(hit, `${row.kind}: its lost create`).toHaveLength(1);
      if (row.address) {
        // The object that create made is adopted (never created again, never left behind).
        expect(texts, row.kind).toContain(`<~ ${row.address}`);
      }
    }
    await expectConvergedAndDestroyed(agents, "after the lost creates");
  });

  // The create half of a create-before-destroy replacement is journaled like a plain create:
  // a lost answer is adopted as the replacement by the next apply, or removed by a destroy.
  it.each(["apply", "destroy", "revert"] as const)(
    "adopts the new vault of a replacement whose create lost its response, then %s finishes",
    async (finish) => {
      const dir = await smallProject(VAULT_YAML("https://forge.example/mcp"));
      const agents = inProcessProject(dir, env);
      expect((await agents.apply()).code).toBe(0);
      const [old] = await liveVaults();
      await fs.writeFile(join(dir, "agents.yaml"), VAULT_YAML("https://forge.example/v2/mcp"));
      await setFaults(b, {
        rules: [{ method: "POST", path: "/cloud/vaults$", nth: 1, action: { type: "drop_response" } }],
      });
      const broken = await agents.apply();
      await setFaults(b, {});
      expect(broken.code).toBe(1);
      expect(await liveVaults(), "the lost create made the new vault").toHaveLength(2);
      if (finish === "revert") {
        // The config goes back to the recorded vault: the new one is no longer wanted.
        await fs.writeFile(join(dir, "agents.yaml"), VAULT_YAML("https://forge.example/mcp"));
        const reverted = await agents.apply();
        expect(reverted.code, reverted.text + reverted.error).toBe(0);
        expect(reverted.text).toContain("the config no longer asks for");
        expect((await liveVaults()).map((v) => v.id)).toEqual([old!.id]);
        expect((await agents.plan()).code).toBe(0);
        const journal = await fs.readFile(join(dir, "agents.state.json.journal"), "utf8").catch(() => "");
        expect(journal, "the journaled create is settled").toBe("");
        expect((await agents.destroy()).code).toBe(0);
        expect(await liveVaults()).toEqual([]);
        return;
      }
      if (finish === "destroy") {
        const destroyed = await agents.destroy();
        expect(destroyed.code, destroyed.text + destroyed.error).toBe(0);
        expect(destroyed.text).toContain("left unrecorded by an interrupted replacement");
        expect(await liveVaults()).toEqual([]);
        return;
      }
      const again = await agents.apply();
      expect(again.code, again.text + again.error).toBe(0);
      expect(again.text).toContain("the replacement an interrupted run created");
      const vaults = await liveVaults();
      expect(vaults, "one vault: the adopted replacement").toHaveLength(1);
      expect(vaults[0]!.id).not.toBe(old!.id);
      expect(vaults[0]!.credentials).toHaveLength(2);
      const plan = await agents.plan();
      expect(plan.code, plan.text).toBe(0);
      expect(plan.plan!.actions[0]!.remoteId).toBe(vaults[0]!.id);
      expect((await agents.destroy()).code).toBe(0);
      expect(await liveVaults()).toEqual([]);
    },
  );
  it("gives an adopted half-made vault only its missing credentials, replacing nothing", async () => {
    const dir = await smallProject(VAULT_YAML("https://forge.example/mcp"));
    const agents = inProcessProject(dir, env);
    await setFaults(b, {
      rules: [{ method: "POST", path: "/cloud/vaults$", nth: 1, action: { type: "drop_response" } }],
    });
    expect((await agents.apply()).code).toBe(1);
    await setFaults(b, {});
    // As if the interrupted create had added its first credential before dying.
    const [vault] = await liveVaults();
    const first = await callB("POST", `/vaults/${vault!.id}/credentials`, {
      display_name: "one",
      auth: {
        type: "environment_variable",
        secret_name: "ONE",
        secret_value: SECRETS.SECRET_ONE,
        networking: { type: "unrestricted" },
      },
    });
    await fetch(`${b.origin}/_sim/log`, { method: "DELETE" });
    const again = await agents.apply();
    expect(again.code, again.text + again.error).toBe(0);
    expect(again.text).toContain(`<~ provider_b.vaults["keys"] (${vault!.id}): adopt`);
    const writes = (await requestLog(b))
      .filter((e) => e.method !== "GET")
      .map((e) => `${e.method} ${e.path.replace(/^.*\/cloud/, "")}`);
    expect(writes).toEqual([`POST /vaults/${vault!.id}/credentials`]);
    const [after] = await liveVaults();
    expect(after!.id).toBe(vault!.id);
    expect(after!.credentials).toContain(first.id);
    expect(after!.credentials).toHaveLength(2);
    const plan = await agents.plan();
    expect(plan.code, plan.text).toBe(0);
    expect((await agents.destroy()).code).toBe(0);
  });
});

/** Every provider_b kind whose create takes a unique name; `forwardEnv` differs between projects. */
const NAMED_YAML = (forwardEnv: string) => `version: "1"
providers:
  provider_b:
    api_key: \${B_API_KEY}
    gateway: \${B_GATEWAY}
identities:
  alice:
    external_id: user-1
environments:
  m-env:
    config:
      type: cloud
  ${forwardEnv}:
    config:
      type: cloud
skills:
  charts:
    source: skills/charts
agents:
  writer:
    model: auto
    instructions: Write clearly.
  concierge:
    model: auto
    instructions: Answer support questions.
    environment: ${forwardEnv}
    delivery:
      provider_b:
        type: forward
channels:
  lobby:
    type: feishu
    mode: pairing
    credentials:
      app_id: \${LOBBY_ID}
      app_secret: \${LOBBY_SECRET}
`;

describe("a create that conflicts with an object this project does not own", () => {
  // One row per kind whose create the provider refuses with 409 when the name is taken.
  const ROWS = [
    B("environments", "m-env"),
    B("skills", "charts"),
    B("identities", "alice"),
    B("agents", "writer"),
    B("agents", "concierge"),
    B("channels", "lobby"),
  ];

  it("is never adopted: the error names agents import, and the other object is left as it was", async () => {
    const env = { AGENTS_STATE_KEY: "crash-b-key" };
    const neighbour = await smallProject(NAMED_YAML("f-env-neighbour"));
    const theirs = inProcessProject(neighbour, { ...env, AGENTS_PROJECT: "neighbour" });
    expect((await theirs.apply()).code).toBe(0);
    const before = await liveObjects();

    const mine = await smallProject(NAMED_YAML("f-env-mine"), false);
    const agents = inProcessProject(mine, { ...env, AGENTS_PROJECT: "mine" });
    const applied = await agents.apply();
    expect(applied.code).toBe(1);
    for (const address of ROWS) {
      const failed = applied.text
        .split("\n")
        .findIndex((line) => line.startsWith(`${address}: create FAILED`));
      expect(failed, `${address}: ${applied.text}`).toBeGreaterThanOrEqual(0);
      expect(
        applied.text
          .split("\n")
          .slice(failed, failed + 3)
          .join("\n"),
        address,
      ).toContain(`agents import '${address}'`);
    }
    expect(applied.text).not.toContain("<~");
    // Destroy removes only what this project made: the neighbour's objects are all still there.
    expect((await agents.destroy()).code).toBe(0);
    const after = await liveObjects();
    expect(after.map((o) => o.id).sort()).toEqual(before.map((o) => o.id).sort());
  });
});

/** provider_a's kinds whose create takes a unique name; `mine` adds the free names a deployment needs. */
const NAMED_A_YAML = (mine: boolean) => `version: "1"
providers:
  provider_a:
    api_key: \${A_API_KEY}
    workspace_id: llm-crash-b
    base_url: \${A_BASE_URL}
environments:
  shared-env:
    config:
      type: cloud
${mine ? "  env-m:\n    config:\n      type: cloud\n" : ""}agents:
  writer:
    model: qwen-max
    instructions: Write clearly.
${mine ? "  writer-m:\n    model: qwen-max\n    instructions: Write clearly.\n" : ""}deployments:
  weekly:
    agent: ${mine ? "writer-m" : "writer"}
    environment: ${mine ? "env-m" : "shared-env"}
    initial_events:
      - type: user.message
        content: Weekly numbers, please.
`;

describe("a provider_a create that conflicts with an object this project does not own", () => {
  const A = (kind: string, name: string) => `provider_a.${kind}["${name}"]`;
  const ROWS = [A("environments", "shared-env"), A("agents", "writer"), A("deployments", "weekly")];
  let a: RunningSim;
  beforeAll(async () => {
    a = await startSim("provider_a", { quiet: true });
  });
  afterAll(async () => {
    await a?.close();
  });

  it("is never adopted: the error names agents import", async () => {
    const env = { AGENTS_STATE_KEY: "crash-b-key", A_API_KEY: "sim-provider-a-key", A_BASE_URL: a.url };
    const neighbour = await smallProject(NAMED_A_YAML(false), false);
    const theirs = inProcessProject(neighbour, { ...env, AGENTS_PROJECT: "neighbour" });
    const first = await theirs.apply();
    expect(first.code, first.text + first.error).toBe(0);
    const mine = await smallProject(NAMED_A_YAML(true), false);
    const agents = inProcessProject(mine, { ...env, AGENTS_PROJECT: "mine" });
    const applied = await agents.apply();
    expect(applied.code).toBe(1);
    const lines = applied.text.split("\n");
    for (const address of ROWS) {
      const failed = lines.findIndex((line) => line.startsWith(`${address}: create FAILED`));
      expect(failed, `${address}: ${applied.text}`).toBeGreaterThanOrEqual(0);
      expect(lines.slice(failed, failed + 3).join("\n"), address).toContain(`agents import '${address}'`);
    }
    expect(applied.text).not.toContain("<~");
  });
});
