// Agents with every reference kind, rosters, optimistic concurrency, and deployments (native on
// provider_c, emulated on provider_d), against the simulators over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RemoteObject, Spec } from "../../../src/providers/types.js";
import { applyDependencies, expectNoDrift, MODEL, SIMULATED, SimWorld } from "./sim-world.js";

for (const provider of SIMULATED) {
  describe(`${provider} agents`, () => {
    let w: SimWorld;
    beforeAll(async () => {
      w = await SimWorld.start(provider);
      await applyDependencies(w);
    });
    afterAll(() => w.close());

    const coordinator = (): Spec => ({
      description: "leads",
      model: MODEL,
      instructions: "Delegate.",
      environment: "dev",
      vault: "keys",
      memory_stores: ["notes"],
      files: [{ file: "data", mount_path: "input/data.csv" }],
      tools: {
        builtin: ["bash", "read", "web_search"],
        default_permission: "ask",
        permissions: { read: "allow" },
      },
      mcp_servers: [{ name: "forge", url: "https://mcp.example/mcp" }],
      skills: ["pdf"],
      multiagent: { type: "coordinator", agents: ["helper"] },
      metadata: { team: "a" },
    });

    it("create with every reference → read shows no drift → update → roster cleared → archive/delete", async () => {
      await w.apply("agents", "helper", { model: MODEL[provider], instructions: "Help." });
      const handler = w.handler("agents");
      const ctx = w.ctx("agents", "lead");
      const first = await w.apply("agents", "lead", coordinator());
      expect(first.remote.version).toBe(1);
      expect(first.remote.extra?.session).toMatchObject({
        environment_id: w.applied.get("environments/dev")?.id,
        vault_ids: [w.applied.get("vaults/keys")?.id],
      });
      expectNoDrift(await handler.read(ctx, first.id, first), first.spec);

      const declared = {
        ...coordinator(),
        instructions: "Delegate less.",
        tools: { builtin: ["bash"], permissions: { bash: "ask" } },
        multiagent: undefined,
      };
      const changed = await w.desired("agents", declared, "lead");
      const updated = await handler.update!(ctx, first.id, declared, first);
      expect(updated.version).toBe(2);
      const read = (await handler.read(ctx, first.id, { id: first.id, spec: changed })) as RemoteObject;
      expectNoDrift(read, changed);
      // The cleared roster reads back as "none", which matches a declaration without one.
      expect(read.spec.multiagent).toBeNull();
      expect(read.spec.instructions).toBe("Delegate less.");

      // Someone else saves the agent: our update still lands on the current version.
      const current = (
        await w.http.request<Record<string, unknown>>({ method: "GET", path: `/agents/${first.id}` })
      ).body;
      await w.http.request({
        method: "POST",
        path: `/agents/${first.id}`,
        json: { version: current.version, description: "edited by hand" },
      });
      const again = await handler.update!(ctx, first.id, declared, first);
      expect(again.version).toBe(4);

      expect((await handler.findOwned!(ctx, ctx.owner))?.id).toBe(first.id);
      await handler.remove(ctx, first.id);
      expect(await handler.read(ctx, first.id)).toBe("gone");
      await handler.remove(ctx, first.id);
      expect(await handler.findOwned!(ctx, ctx.owner)).toBeUndefined();
    });

    it("an unchanged update does not bump the version (the diff showed nothing real)", async () => {
      const handler = w.handler("agents");
      const ctx = w.ctx("agents", "steady");
      const first = await w.apply("agents", "steady", { model: MODEL, instructions: "Same." });
      const updated = await handler.update!(ctx, first.id, { model: MODEL, instructions: "Same." }, first);
      expect(updated.version).toBe(first.remote.version);
    });
  });
}

describe("provider_c deployments (native)", () => {
  let w: SimWorld;
  beforeAll(async () => {
    w = await SimWorld.start("provider_c");
    await applyDependencies(w);
    await w.apply("agents", "lead", { model: MODEL, instructions: "Go.", environment: "dev" });
  });
  afterAll(() => w.close());

  it("create → read → update schedule → findOwned → archive; uploaded sources are deleted", async () => {
    await w.writeFile("rubric.md", "All tests pass.");
    await w.writeFile("in/brief.txt", "brief");
    const spec: Spec = {
      agent: "lead",
      memory_stores: ["notes"],
      resources: [
        { type: "memory_store", memory_store: "notes", access: "read_only", instructions: "read it" },
        { type: "file", source: `${w.configDir}/in/brief.txt`, mount_path: "brief.txt" },
        {
          type: "git_repository",
          url: "https://github.com/o/r.git",
          authorization_token: "ghp_x",
          checkout: { branch: "main" },
        },
      ],
      initial_events: [
        { type: "user.message", content: "Start." },
        { type: "user.define_outcome", description: "ship", rubric_file: "rubric.md", max_iterations: 2 },
      ],
      schedule: { expression: "0 9 * * 1", timezone: "Europe/Berlin" },
      metadata: { team: "a" },
    };
    const handler = w.handler("deployments");
    const ctx = w.ctx("deployments", "weekly");
    const first = await w.apply("deployments", "weekly", spec);
    expect(first.spec.resources).not.toContainEqual(
      expect.objectContaining({ authorization_token: "ghp_x" }),
    );
    const uploads = first.remote.extra?.uploads as Record<string, string>;
    expect(Object.keys(uploads)).toHaveLength(1);
    expectNoDrift(await handler.read(ctx, first.id, first), first.spec);

    const declared = {
      ...spec,
      schedule: { expression: "0 10 * * *", timezone: "UTC" },
      description: "daily",
    };
    const changed = await w.desired("deployments", declared);
    await handler.update!(ctx, first.id, declared, first);
    const read = await handler.read(ctx, first.id, { ...first, spec: changed });
    expectNoDrift(read, changed);
    expect((read as RemoteObject).spec.schedule).toEqual({ expression: "0 10 * * *", timezone: "UTC" });

    expect((await handler.findOwned!(ctx, ctx.owner))?.id).toBe(first.id);
    await handler.remove(ctx, first.id, first);
    expect(await handler.read(ctx, first.id, first)).toBe("gone");
    const fileId = Object.values(uploads)[0]!;
    expect(await w.handler("files").read(w.ctx("files", "x"), fileId)).toBe("gone");
  });

  it("agent_version pins {type:'agent', id, version} and reads back; the agent's environment is inherited", async () => {
    const spec = {
      agent: "lead",
      agent_version: 1,
      initial_events: [{ type: "user.message", content: "Go." }],
    };
    const applied = await w.apply("deployments", "pinned", spec);
    const remote = (
      await w.http.request<Record<string, any>>({ method: "GET", path: `/deployments/${applied.id}` })
    ).body;
    expect(remote.agent).toMatchObject({ id: w.applied.get("agents/lead")?.id, version: 1 });
    expect(remote.environment_id).toBe(w.applied.get("environments/dev")?.id);
    const read = await w.handler("deployments").read(w.ctx("deployments", "pinned"), applied.id, applied);
    expectNoDrift(read, applied.spec);
    expect((read as RemoteObject).spec.agent_version).toBe(1);
  });

  it("run starts a native run that names its session", async () => {
    const applied = await w.apply("deployments", "manual", {
      agent: "lead",
      initial_events: [{ type: "user.message", content: "Go." }],
    });
    const result = await w.handler("deployments").run!(w.ctx("deployments", "manual"), applied.id, applied);
    expect(result.run_id).toMatch(/^drun_/);
    const run = (
      await w.http.request<Record<string, unknown>>({
        method: "GET",
        path: `/deployment_runs/${result.run_id}`,
      })
    ).body;
    expect(run.deployment_id).toBe(applied.id);
    expect(run.session_id ?? null).toBe(result.session_id ?? null);
  });

  it("a deployment without initial events is refused with the fix", async () => {
    await expect(w.apply("deployments", "empty", { agent: "lead" })).rejects.toThrow(/initial_events/);
  });
});
