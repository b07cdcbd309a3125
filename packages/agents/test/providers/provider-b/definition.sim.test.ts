// provider_b Managed API against the simulator over real sockets: create → read (no drift) →
// update → findOwned → remove, per kind.
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionStartRefusal } from "../../../src/providers/common/errors.js";
import { createProviderB } from "../../../src/providers/provider-b/definition.js";
import { startManagedSession } from "../../../src/providers/provider-b/handlers/sessions.js";
import { desiredOf, drift, type Harness, makeHarness, writeSkill } from "../harness.js";

let sim: RunningSim;
let h: Harness;
const adapter = createProviderB({ storeDeleteRetryMs: [1, 1], sleep: async () => {} });

beforeAll(async () => {
  sim = await startSim("provider_b", { port: 0, quiet: true });
  h = await makeHarness(adapter, { api_key: "sim-provider-b-key" }, sim.url);
});
afterAll(async () => {
  await sim?.close();
});

async function wire<T = Record<string, unknown>>(
  method: "GET" | "POST",
  path: string,
  json?: unknown,
): Promise<T> {
  return (await h.http.request<T>({ method, path, json })).body;
}

describe("provider_b environments", () => {
  it("cloud: create → read without drift → update tombstones metadata → findOwned → remove", async () => {
    const handler = h.handler("environments");
    const spec = {
      config: { type: "cloud", packages: { pip: ["requests"] } },
      metadata: { team: "a", old: "x" },
    };
    const created = await h.create("environments", "dev", spec);
    expect(created.id).toMatch(/^env_/);
    const read = await handler.read(h.ctx("environments", "dev"), created.id);
    expect(read).not.toBe("gone");
    const desired = await desiredOf(handler, spec, h.configDir);
    expect(drift(handler, desired, (read as { spec: Record<string, unknown> }).spec)).toEqual([]);

    const next = {
      config: { type: "cloud", packages: { pip: ["requests"], npm: ["left-pad"] } },
      metadata: { team: "b" },
    };
    await handler.update!(h.ctx("environments", "dev"), created.id, next, { id: created.id, spec: desired });
    const remote = await wire(`GET`, `/environments/${created.id}`);
    expect(remote.metadata).toEqual({
      team: "b",
      "agents.project": "ab-test",
      "agents.resource": 'provider_b.environments["dev"]',
    });
    expect((remote.config as { packages: unknown }).packages).toMatchObject({
      pip: ["requests"],
      npm: ["left-pad"],
    });

    const owned = await handler.findOwned!(h.ctx("environments", "dev"), h.ctx("environments", "dev").owner);
    expect(owned?.id).toBe(created.id);
    await handler.remove(h.ctx("environments", "dev"), created.id);
    expect(await handler.read(h.ctx("environments", "dev"), created.id)).toBe("gone");
    await handler.remove(h.ctx("environments", "dev"), created.id); // already gone is success
  });

  it("self_hosted BYOC: a setup_script dropped from the file disappears remotely", async () => {
    const handler = h.handler("environments");
    const created = await h.create("environments", "byoc", {
      config: { type: "self_hosted", setup_script: "apt-get install -y jq" },
    });
    expect((await wire(`GET`, `/environments/${created.id}`)).config).toEqual({
      type: "self_hosted",
      setup_script: "apt-get install -y jq",
    });
    await handler.update!(
      h.ctx("environments", "byoc"),
      created.id,
      { config: { type: "self_hosted" } },
      { id: created.id, spec: {} },
    );
    expect((await wire(`GET`, `/environments/${created.id}`)).config).toEqual({ type: "self_hosted" });
  });

  it("a second create of the same name adopts our own environment", async () => {
    const spec = { config: { type: "cloud" } };
    const first = await h.create("environments", "twice", spec);
    const second = await h.handler("environments").create(h.ctx("environments", "twice"), spec);
    expect(second.id).toBe(first.id);
  });
});

describe("provider_b vaults", () => {
  it("creates credentials one by one, never reads a secret back, and removes the vault", async () => {
    const handler = h.handler("vaults");
    const spec = {
      credentials: [
        {
          name: "forge",
          type: "static_bearer",
          mcp_server_url: "https://forge.example/mcp",
          access_token: "tok-123456",
        },
        { name: "gh", type: "environment_variable", secret_name: "GH_TOKEN", secret_value: "ghp-abcdef" },
      ],
    };
    const created = await h.create("vaults", "keys", spec);
    const read = await handler.read(h.ctx("vaults", "keys"), created.id);
    expect(JSON.stringify(read)).not.toMatch(/tok-123456|ghp-abcdef/);
    const desired = await desiredOf(handler, spec, h.configDir);
    const observed = await handler.read(h.ctx("vaults", "keys"), created.id, {
      id: created.id,
      spec: desired,
    });
    expect(drift(handler, desired, (observed as { spec: Record<string, unknown> }).spec)).toEqual([]);
    await handler.remove(h.ctx("vaults", "keys"), created.id);
    expect(await handler.read(h.ctx("vaults", "keys"), created.id)).toBe("gone");
  });
});

describe("provider_b memory stores: entries are managed seeds", () => {
  it("creates seeds, updates changed ones, keeps what agents wrote, deletes permanently", async () => {
    const handler = h.handler("memory_stores");
    const spec = {
      description: "team notes",
      entries: [
        { key: "/style.md", content: "be brief" },
        { key: "facts.md", content: "v1" },
      ],
    };
    const created = await h.create("memory_stores", "notes", spec);
    const storeId = created.id;
    // An agent writes its own memory.
    await wire("POST", `/memory_stores/${storeId}/memories`, { path: "agent/learned.md", content: "mine" });
    const desired = await desiredOf(handler, spec, h.configDir);
    const read = await handler.read(h.ctx("memory_stores", "notes"), storeId, { id: storeId, spec: desired });
    expect(drift(handler, desired, (read as { spec: Record<string, unknown> }).spec)).toEqual([]);

    const next = {
      description: "team notes",
      entries: [
        { key: "style.md", content: "be brief" },
        { key: "facts.md", content: "v2" },
      ],
    };
    await handler.update!(h.ctx("memory_stores", "notes"), storeId, next, { id: storeId, spec: desired });
    const memories = (
      await wire<{ data: { path: string; id: string }[] }>("GET", `/memory_stores/${storeId}/memories`)
    ).data;
    expect(memories.map((m) => m.path).sort()).toEqual(["agent/learned.md", "facts.md", "style.md"]);
    const facts = memories.find((m) => m.path === "facts.md")!;
    expect((await wire("GET", `/memory_stores/${storeId}/memories/${facts.id}`)).content).toBe("v2");

    await handler.remove(h.ctx("memory_stores", "notes"), storeId);
    expect(await handler.read(h.ctx("memory_stores", "notes"), storeId)).toBe("gone");
  });
});

describe("provider_b skills, agents and deployments", () => {
  it("skill: zip create, new version, delete", async () => {
    const handler = h.handler("skills");
    const source = await writeSkill(h.configDir, "summarize");
    const created = await h.create("skills", "summarize", { source });
    expect(created.extra?.name).toBe("summarize");
    const updated = await handler.update!(
      h.ctx("skills", "summarize"),
      created.id,
      { source },
      { id: created.id, spec: {} },
    );
    expect(String(updated.version)).not.toBe(String(created.version));
  });

  it("agent: tools with permissions, skill, roster by id; removing multiagent clears the roster with null", async () => {
    const handler = h.handler("agents");
    await h.create("agents", "helper", { model: "auto", instructions: "help" });
    const spec = {
      model: { provider_b: "ultimate" },
      instructions: "coordinate",
      tools: { builtin: ["bash", "web_fetch"], default_permission: "ask", permissions: { bash: "allow" } },
      skills: ["summarize"],
      multiagent: { type: "coordinator", agents: ["helper"] },
      metadata: { team: "x" },
    };
    const created = await h.create("agents", "lead", spec);
    const remote = await wire(`GET`, `/agents/${created.id}`);
    expect(remote.multiagent).toMatchObject({
      type: "coordinator",
      agents: [{ id: h.refs.get("agents/helper")!.id }],
    });
    const desired = await desiredOf(handler, spec, h.configDir, "lead");
    // The engine reads with the last-applied spec, whose member names map the remote ids back.
    const read = await handler.read(h.ctx("agents", "lead"), created.id, { id: created.id, spec: desired });
    expect(drift(handler, desired, (read as { spec: Record<string, unknown> }).spec)).toEqual([]);

    const { multiagent: _dropped, ...withoutRoster } = spec;
    await handler.update!(h.ctx("agents", "lead"), created.id, withoutRoster, {
      id: created.id,
      spec: desired,
    });
    const after = await wire(`GET`, `/agents/${created.id}`);
    expect(after.multiagent ?? null).toBeNull();
    expect(Number(after.version)).toBeGreaterThan(Number(remote.version));
    expect((await handler.findOwned!(h.ctx("agents", "lead"), h.ctx("agents", "lead").owner))?.id).toBe(
      created.id,
    );
  });

  it("deployment: tunnel dropped with a warning, update replaces lists, archive on remove", async () => {
    const handler = h.handler("deployments");
    await h.create("environments", "deploy-env", { config: { type: "cloud" } });
    h.warnings.length = 0;
    const spec = {
      agent: "helper",
      environment: "deploy-env",
      tunnel: "t",
      initial_events: [{ type: "user.message", content: "daily report" }],
      schedule: { expression: "0 9 * * *", timezone: "Asia/Shanghai" },
      environment_variables: { REGION: "cn" },
    };
    const created = await h.create("deployments", "daily", spec);
    expect(h.warnings.join()).toMatch(/no tunnel/);
    const remote = await wire(`GET`, `/deployments/${created.id}`);
    expect(remote).not.toHaveProperty("tunnel_id");
    expect(remote.schedule).toMatchObject({ type: "cron", expression: "0 9 * * *" });
    const run = await handler.run!(h.ctx("deployments", "daily"), created.id, { id: created.id, spec: {} });
    expect(run.run_id).toBeTruthy();
    expect(run.session_id).toMatch(/^sess_/);
    await handler.update!(
      h.ctx("deployments", "daily"),
      created.id,
      { ...spec, description: "reports" },
      { id: created.id, spec: {} },
    );
    expect((await wire(`GET`, `/deployments/${created.id}`)).description).toBe("reports");
    await handler.remove(h.ctx("deployments", "daily"), created.id);
    expect(await handler.read(h.ctx("deployments", "daily"), created.id)).toBe("gone");
    // Removed again (a destroy killed after the archive answered, before state recorded it): the
    // provider answers 409 ALREADY_ARCHIVED, which is the end state removal wants.
    await handler.remove(h.ctx("deployments", "daily"), created.id);
  });

  it("deployment files from a local source: uploaded once, re-uploaded when edited, cleaned up", async () => {
    const handler = h.handler("deployments");
    const { writeFile } = await import("node:fs/promises");
    const { join } = await import("node:path");
    await writeFile(join(h.configDir, "brief.md"), "v1");
    const spec = {
      agent: "helper",
      environment: "deploy-env",
      initial_events: [{ type: "user.message", content: "go" }],
      resources: [{ type: "file", source: "brief.md", mount_path: "in/brief.md" }],
    };
    const created = await h.create("deployments", "briefed", spec);
    const ledger = () => created.extra?.uploads as Record<string, { id: string }>;
    const first = ledger()["brief.md"]!.id;
    expect((await wire(`GET`, `/deployments/${created.id}`)).resources).toEqual([
      expect.objectContaining({ type: "file", file_id: first, mount_path: "/data/in/brief.md" }),
    ]);
    let prior = { id: created.id, spec: {}, extra: created.extra };
    const same = await handler.update!(h.ctx("deployments", "briefed"), created.id, spec, prior);
    expect((same.extra!.uploads as Record<string, { id: string }>)["brief.md"]!.id).toBe(first);
    await writeFile(join(h.configDir, "brief.md"), "v2");
    prior = { id: created.id, spec: {}, extra: same.extra };
    const edited = await handler.update!(h.ctx("deployments", "briefed"), created.id, spec, prior);
    const second = (edited.extra!.uploads as Record<string, { id: string }>)["brief.md"]!.id;
    expect(second).not.toBe(first);
    const gone = async (id: string) =>
      (await h.http.request({ method: "GET", path: `/files/${id}`, allowStatus: [404] })).status;
    expect(await gone(first)).toBe(404);
    await handler.remove(h.ctx("deployments", "briefed"), created.id, {
      id: created.id,
      spec: {},
      extra: edited.extra,
    });
    expect(await gone(second)).toBe(404);
  });

  it("agent removal deletes the managed agent", async () => {
    const handler = h.handler("agents");
    const id = h.refs.get("agents/lead")!.id;
    await handler.remove(h.ctx("agents", "lead"), id);
    expect(await handler.read(h.ctx("agents", "lead"), id)).toBe("gone");
  });
});

describe("provider_b managed session start refuses what its session form cannot carry", () => {
  // The agent is valid to deploy (its create sends neither): only `agents session start` is
  // refused, as a SessionStartRefusal, before it resolves anything (environment `e` was never
  // created here, so getting further would fail otherwise).
  it.each([
    [
      'a ";" in an environment variable value',
      { environment_variables: { A: "1;2" } },
      /environment variable A: provider_b's managed session form cannot carry ";" in a value/,
    ],
    [
      "a session resource other than git_repository",
      { resources: [{ type: "file", url: "https://g/a/b" }] },
      /session resource type file is not supported \(only git_repository\)/,
    ],
  ])("%s", async (_rule, extra, message) => {
    const ctx = h.ctx("agents", "runner");
    const spec = { model: "auto", instructions: "Run.", environment: "e", ...extra };
    const refused = startManagedSession(ctx, "agent_1", { id: "agent_1", spec: {} }, { spec });
    await expect(refused).rejects.toThrow(SessionStartRefusal);
    await expect(refused).rejects.toThrow(message);
  });
});
