import { describe, expect, it } from "vitest";
import { readSse } from "../wire-client.js";
import { fixtures, KEY, useProviderB } from "./setup.js";

const b = useProviderB();
const { api, control } = b;

const { env, agent } = fixtures(api);

describe("provider_b deployments (docs/wire/provider-b.md §3.7)", () => {
  const events = [{ type: "user.message", content: [{ type: "text", text: "go" }] }];
  let n = 0;
  async function deployment(extra: Record<string, unknown> = {}) {
    n += 1;
    const e = await env(`env-${n}`);
    const a = await agent(`agent-${n}`);
    return api("POST", "/deployments", {
      name: "nightly",
      agent: a.id,
      environment_id: e.id,
      initial_events: events,
      ...extra,
    });
  }

  it("rejects tunnel_id (unknown field)", async () => {
    const r = await deployment({ tunnel_id: "tnl_sim_primary" });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain("tunnel_id");
  });

  it("runs into a session, pauses, unpauses, refuses to drop a schedule by update, archives", async () => {
    const d = (
      await deployment({ schedule: { type: "cron", expression: "0 3 * * *", timezone: "Asia/Shanghai" } })
    ).body;
    expect(d).toMatchObject({ status: "active", schedule: { type: "cron", expression: "0 3 * * *" } });
    const run = await api("POST", `/deployments/${d.id}/run`, {});
    expect(run.body).toMatchObject({
      id: expect.stringMatching(/^drun_/),
      session_id: expect.stringMatching(/^sess_/),
      error: null,
    });
    const evs = await api("GET", `/sessions/${run.body.session_id}/events`);
    expect(evs.body.data[0]).toMatchObject({ type: "user.message" });
    expect((await api("POST", `/deployments/${d.id}/pause`, {})).body.status).toBe("paused");
    expect((await api("POST", `/deployments/${d.id}/run`, {})).status).toBe(409);
    expect((await api("POST", `/deployments/${d.id}/unpause`, {})).body.status).toBe("active");
    expect((await api("POST", `/deployments/${d.id}`, { schedule: null })).status).toBe(400);
    const u = await api("POST", `/deployments/${d.id}`, { description: "", metadata: { k: "v" } });
    expect(u.body.metadata).toEqual({ k: "v" });
    await api("POST", `/deployments/${d.id}/archive`, {});
    expect((await api("GET", "/deployments")).body.data).toHaveLength(0);
    expect((await api("GET", "/deployments?include_archived=true")).body.data).toHaveLength(1);
  });

  it("fires cron slots on the simulated clock as runs with sessions, skipping paused time", async () => {
    const d = (await deployment({ schedule: { type: "cron", expression: "0 * * * *", timezone: "UTC" } }))
      .body;
    const runs = async () => (await control("GET", "/state")).body.deployment_runs;
    await control("POST", "/clock", { advance_seconds: 3 * 3600 });
    expect((await api("GET", `/deployments/${d.id}`)).status).toBe(200);
    expect((await runs()).map((r: any) => r.trigger_context.type)).toEqual([
      "schedule",
      "schedule",
      "schedule",
    ]);
    expect((await api("GET", "/sessions")).body.data).toHaveLength(3);
    await api("POST", `/deployments/${d.id}/pause`, {});
    await control("POST", "/clock", { advance_seconds: 2 * 3600 });
    await api("POST", `/deployments/${d.id}/unpause`, {});
    expect(await runs()).toHaveLength(3);
    await control("POST", "/clock", { advance_seconds: 3600 });
    await api("GET", "/deployments");
    expect(await runs()).toHaveLength(4);
  });

  it("rejects a bad cron expression and time zone", async () => {
    expect(
      (await deployment({ schedule: { type: "cron", expression: "* * *", timezone: "UTC" } })).status,
    ).toBe(400);
    expect(
      (await deployment({ schedule: { type: "cron", expression: "0 3 * * *", timezone: "Mars/Base" } }))
        .status,
    ).toBe(400);
  });
});

describe("provider_b managed sessions (docs/wire/provider-b.md §3.8)", () => {
  it("creates with resources under /data, sends events, lists and streams them, deletes", async () => {
    const e = await env();
    const a = await agent();
    const s = await api("POST", "/sessions", {
      agent: a.id,
      environment_id: e.id,
      tunnel_id: "tnl_sim_primary",
      environment_variables: "A=1;B=2",
      resources: [
        {
          type: "github_repository",
          url: "https://github.com/acme/widgets.git",
          authorization_token: "ghp_x",
          checkout: { type: "branch", name: "main" },
        },
      ],
    });
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ status: "idle", agent: { id: a.id, version: 1 } });
    expect(s.body.resources[0].mount_path).toBe("/data/workspace/widgets");
    expect(JSON.stringify(s.body)).not.toContain("ghp_x");
    const sent = await api("POST", `/sessions/${s.body.id}/events`, {
      events: [{ type: "user.message", content: [{ type: "text", text: "hello" }] }],
    });
    expect(sent.body.data[0].id).toEqual(expect.any(String));
    const list = await api("GET", `/sessions/${s.body.id}/events?limit=10`);
    expect(list.body.data.map((x: any) => x.type)).toEqual([
      "user.message",
      "session.status_running",
      "agent.message",
      "session.status_idle",
    ]);
    const frames = await readSse(
      `${b.sim.url}/sessions/${s.body.id}/events/stream`,
      { authorization: `Bearer ${KEY}` },
      4,
    );
    expect(frames.map((f) => f.type)).toEqual(list.body.data.map((x: any) => x.type));
    expect((await api("GET", `/sessions?agent_id=${a.id}`)).body).toMatchObject({
      data: [{ id: s.body.id }],
      next_page: null,
    });
    expect((await api("DELETE", `/sessions/${s.body.id}`)).status).toBe(200);
    expect((await api("GET", `/sessions/${s.body.id}`)).status).toBe(404);
  });

  it.each([
    [
      "a mount path outside /data",
      [{ type: "github_repository", url: "https://github.com/a/b", mount_path: "/mnt/b" }],
    ],
    ["a resource without type", [{ url: "https://github.com/a/b" }]],
    ["an unknown memory store", [{ type: "memory_store", memory_store_id: "memstore_x" }]],
  ])("rejects %s", async (_l, resources) => {
    const e = await env();
    const a = await agent();
    expect((await api("POST", "/sessions", { agent: a.id, environment_id: e.id, resources })).status).toBe(
      400,
    );
  });

  it("rejects new events on an archived session but still reads it", async () => {
    const e = await env();
    const a = await agent();
    const s = (await api("POST", "/sessions", { agent: a.id, environment_id: e.id })).body;
    await api("POST", `/sessions/${s.id}/archive`);
    expect((await api("GET", `/sessions/${s.id}`)).body.archived_at).toEqual(expect.any(String));
    const r = await api("POST", `/sessions/${s.id}/events`, {
      events: [{ type: "user.message", content: [{ type: "text", text: "x" }] }],
    });
    expect(r.status).toBe(409);
  });
});
