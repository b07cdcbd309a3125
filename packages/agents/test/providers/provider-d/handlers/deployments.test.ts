// provider_d only: strict environment names (409 → suffix retry, reservations) and the
// emulated deployment (nothing remote at apply; a run creates a session), over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatedRunPlan } from "../../../../src/providers/provider-d/handlers/deployments.js";
import { applyDependencies, MODEL, SimWorld } from "../../managed-dialect/sim-world.js";

describe("provider_d environment names", () => {
  let w: SimWorld;
  beforeAll(async () => {
    w = await SimWorld.start("provider_d");
  });
  afterAll(() => w.close());

  it("409 ResourceConflict on a taken name retries with -1 and keeps the logical name in metadata", async () => {
    await w.http.request({
      method: "POST",
      path: "/environments",
      json: { name: "build", config: { type: "cloud" } },
    });
    const error = await w.http
      .request({ method: "POST", path: "/environments", json: { name: "build", config: { type: "cloud" } } })
      .catch((e) => e);
    expect(error).toMatchObject({ status: 409, code: "ResourceConflict", conflict: true });

    const ctx = w.ctx("environments", "Build");
    const created = await w.handler("environments").create(ctx, { config: { type: "cloud" } });
    expect(created.extra?.name).toBe("build-1");
    expect(created.spec.name).toBeUndefined(); // the suffixed name is ours, not drift
    const remote = (
      await w.http.request<Record<string, any>>({ method: "GET", path: `/environments/${created.id}` })
    ).body;
    expect(remote.metadata["agents.resource"]).toBe('provider_d.environments["Build"]');

    // An update keeps the suffixed name: "build" is still someone else's.
    const handler = w.handler("environments");
    const prior = {
      id: created.id,
      spec: { config: { type: "cloud" } },
      ...(created.extra ? { extra: created.extra } : {}),
    };
    const declared = { description: "now described", config: { type: "cloud" } };
    const updated = await handler.update!(ctx, created.id, declared, prior);
    expect(updated.extra?.name).toBe("build-1");
    expect(updated.spec.description).toBe("now described");
  });

  it("a name still reserved after deletion is retried too; a re-create after a crash adopts", async () => {
    const ctx = w.ctx("environments", "cache");
    const first = await w.handler("environments").create(ctx, { config: { type: "cloud" } });
    // crash before the state write: the same create again finds the conflict is our own object
    const again = await w.handler("environments").create(ctx, { config: { type: "cloud" } });
    expect(again.id).toBe(first.id);
    expect(w.warnings.at(-1)).toMatch(/adopted/);
    await w.handler("environments").remove(ctx, first.id);
    const third = await w.handler("environments").create(ctx, { config: { type: "cloud" } });
    expect(third.id).not.toBe(first.id);
    expect(third.extra?.name).toBe("cache-1");
  });
});

describe("provider_d deployments (emulated, nothing remote)", () => {
  let w: SimWorld;
  beforeAll(async () => {
    w = await SimWorld.start("provider_d");
    await applyDependencies(w);
    await w.apply("agents", "lead", { model: MODEL, instructions: "Go.", environment: "dev", vault: "keys" });
  });
  afterAll(() => w.close());

  it("apply records the session body; a run creates a session and sends the messages", async () => {
    await w.writeFile("in/brief.txt", "brief");
    const before = w.stats.calls;
    const applied = await w.apply("deployments", "weekly", {
      agent: "lead",
      memory_stores: ["notes"],
      resources: [
        { type: "file", source: `${w.configDir}/in/brief.txt`, mount_path: "brief.txt" },
        { type: "git_repository", url: "https://github.com/o/r" },
      ],
      initial_events: [
        { type: "system.message", content: "Context." },
        { type: "user.message", content: "Start." },
        { type: "user.define_outcome", description: "ship" },
      ],
      schedule: { expression: "0 9 * * 1", timezone: "UTC" },
      description: "weekly run",
    });
    expect(w.stats.calls).toBe(before); // nothing remote
    expect(applied.id).toBe('local:provider_d.deployments["weekly"]');
    expect(w.warnings.join("\n")).toMatch(/schedule is recorded but not enforced/);
    expect(w.warnings.join("\n")).toMatch(/git_repository/);
    const plan = applied.remote.extra?.run as unknown as EmulatedRunPlan;
    expect(plan.session).toMatchObject({
      agent: w.applied.get("agents/lead")?.id,
      environment_id: w.applied.get("environments/dev")?.id,
      vault_ids: [w.applied.get("vaults/keys")?.id],
      title: "weekly run",
    });
    expect(plan.events.map((e) => e.type)).toEqual(["user.message", "user.message"]);

    const handler = w.handler("deployments");
    const { session_id } = (await handler.run!(w.ctx("deployments", "weekly"), applied.id, applied)) as {
      session_id: string;
    };
    const session = (
      await w.http.request<Record<string, unknown>>({ method: "GET", path: `/sessions/${session_id}` })
    ).body;
    expect(session.environment_id).toBe(w.applied.get("environments/dev")?.id);
    const resources = session.resources as Array<Record<string, unknown>>;
    expect(resources.map((r) => r.type).sort()).toEqual(["file", "memory_store"]);
    expect(resources.find((r) => r.type === "file")?.mount_path).toBe("/mnt/brief.txt");
    const events = (
      await w.http.request<{ data: Array<Record<string, any>> }>({
        method: "GET",
        path: `/sessions/${session_id}/events`,
      })
    ).body.data;
    const sent = events.filter((e) => e.type === "user.message").map((e) => e.content?.[0]?.text);
    expect(sent).toEqual(["Context.", "Start."]);
    expect(handler.localOnly).toBe(true);
    await handler.remove(w.ctx("deployments", "weekly"), applied.id);
  });
});
