import { describe, expect, it } from "vitest";
import { COLLECTIONS } from "../../src/provider-a/state.js";
import { readSse, skillZip } from "../wire-client.js";
import { availableSkillFile, KEY, upload, useProviderA } from "./setup.js";

const t = useProviderA();

async function activeSkill(name = "summarize") {
  const f = await availableSkillFile(t.api, name);
  const s = (await t.api("POST", "/skills", { file_id: f.id })).body;
  await t.api("GET", `/skills/${s.id}`);
  expect((await t.api("GET", `/skills/${s.id}`)).body.status).toBe("active");
  return s;
}
async function agent(name = "a1", extra: Record<string, unknown> = {}) {
  const r = await t.api("POST", "/agents", {
    name,
    model: { id: "qwen-max" },
    system: "be brief",
    metadata: {},
    ...extra,
  });
  expect(r.status).toBe(200);
  return r.body;
}
async function env(name = "e1") {
  return (await t.api("POST", "/environments", { name, config: { type: "cloud" } })).body;
}

describe("provider_a skills (docs/wire/provider-a.md §3.4)", () => {
  it("creates from an available file, scans asynchronously, versions, lists both catalogs, deletes", async () => {
    const f = await availableSkillFile(t.api, "summarize");
    const s = await t.api("POST", "/skills", { file_id: f.id });
    expect(s.body).toMatchObject({
      id: expect.stringMatching(/^skill-/),
      type: "skill",
      name: "summarize",
      status: "security_scanning",
      latest_version: "1.0",
      source: "customer",
    });
    expect((await t.api("GET", `/skills/${s.body.id}`)).body.status).toBe("security_scanning");
    expect((await t.api("GET", `/skills/${s.body.id}`)).body.status).toBe("active");
    const f2 = await availableSkillFile(t.api, "summarize", "better");
    const v2 = await t.api("POST", `/skills/${s.body.id}/versions`, { file_id: f2.id });
    expect(v2.body).toEqual({
      skill_id: s.body.id,
      version: "2.0",
      status: "security_scanning",
      created_at: expect.any(String),
    });
    await t.control("POST", "/clock", { advance_seconds: 300 });
    expect((await t.api("GET", `/skills/${s.body.id}/versions/2.0`)).body.status).toBe("active");
    expect(
      (await t.api("GET", `/skills/${s.body.id}/versions`)).body.data.map((v: any) => v.version),
    ).toEqual(["1.0", "2.0"]);
    const official = (await t.api("GET", "/skills?source=official")).body.data;
    expect(official[0]).toMatchObject({ id: expect.stringMatching(/^skill_/), source: "official" });
    expect((await t.api("GET", "/skills")).body.data.map((x: any) => x.source)).toEqual(["customer"]);
    expect((await t.api("DELETE", `/skills/${s.body.id}`)).body).toEqual({
      id: s.body.id,
      type: "skill_deleted",
    });
  });

  it.each([
    ["a file still being audited", async () => (await upload(t.api, "s.zip", skillZip("s"))).id],
    [
      "a part labelled application/zip",
      async () => {
        const f = await upload(t.api, "s.zip", skillZip("s"), "application/zip");
        await t.api("GET", `/files/${f.id}`);
        await t.api("GET", `/files/${f.id}`);
        return f.id;
      },
    ],
  ])("answers 500 SKILL_FILE_NOT_FOUND for %s", async (_l, fileId) => {
    const r = await t.api("POST", "/skills", { file_id: await fileId() });
    expect(r.status).toBe(500);
    expect(r.body.error.code).toBe("SKILL_FILE_NOT_FOUND");
  });

  it("lets a client that retries POST /skills on SKILL_FILE_NOT_FOUND through once the audit settles", async () => {
    const f = await upload(t.api, "retry.zip", skillZip("retry"));
    const first = await t.api("POST", "/skills", { file_id: f.id });
    expect(first.body.error.code).toBe("SKILL_FILE_NOT_FOUND");
    expect((await t.api("POST", "/skills", { file_id: f.id })).status).toBe(200);
  });

  it("rejects a zip with a wrapping folder, and marks a package with malware unsafe", async () => {
    await t.control("POST", "/seed", { settings: { file_audit_polls: 0, skill_scan_polls: 0 } });
    const wrapped = await upload(t.api, "w.zip", skillZip("w", "w"));
    expect((await t.api("POST", "/skills", { file_id: wrapped.id })).status).toBe(400);
    const { zipSync } = await import("fflate");
    const bad = zipSync({
      "SKILL.md": new TextEncoder().encode("---\nname: evil\n---\n"),
      "malware.sh": new Uint8Array([1]),
    });
    const f = await upload(t.api, "evil.zip", bad);
    expect((await t.api("POST", "/skills", { file_id: f.id })).body.status).toBe("unsafe");
  });
});

describe("provider_a agents (docs/wire/provider-a.md §3.5)", () => {
  it("creates version 1 with the default toolkit, updates with POST + current version, archives", async () => {
    const a = await agent();
    expect(a).toMatchObject({
      id: expect.stringMatching(/^agent_/),
      type: "agent",
      version: 1,
      model: { id: "qwen-max" },
    });
    expect(a.tools).toEqual([{ type: "builtin_toolkit", default_config: { enabled: true }, configs: [] }]);
    const u = await t.api("POST", `/agents/${a.id}`, { version: 1, system: "be briefer" });
    expect(u.body.version).toBe(2);
    const stale = await t.api("POST", `/agents/${a.id}`, { version: 1, system: "x" });
    expect(stale.status).toBe(400);
    expect((await t.api("PUT", `/agents/${a.id}`, { version: 2 })).status).toBe(404);
    await t.api("POST", `/agents/${a.id}/archive`);
    expect((await t.api("GET", "/agents")).body.data).toHaveLength(0);
    expect((await t.api("GET", "/agents?include_archived=true&keyword=ignored")).body.data).toHaveLength(1);
    expect((await t.api("POST", `/agents/${a.id}`, { version: 2, system: "y" })).status).toBe(400);
  });

  it.each([
    ["a string model", { model: "qwen-max" }],
    [
      "an unsupported builtin tool",
      { tools: [{ type: "builtin_toolkit", configs: [{ name: "web_fetch", enabled: true }] }] },
    ],
    [
      "a permission (ask)",
      {
        tools: [
          {
            type: "builtin_toolkit",
            configs: [{ name: "bash", enabled: true, permission_policy: { type: "always_ask" } }],
          },
        ],
      },
    ],
    ["a URL MCP server", { mcp_servers: [{ type: "url", name: "gh", url: "https://m" }] }],
    [
      "an MCP toolkit for an undeclared server",
      { tools: [{ type: "mcp_toolkit", mcp_server_name: "amap" }] },
    ],
    ["a skill without version", { skills: [{ type: "customer", skill_id: "skill-x" }] }],
    ["environment_variables", { environment_variables: { A: "1" } }],
  ])("rejects %s", async (_l, extra) => {
    expect((await t.api("POST", "/agents", { name: "x", model: { id: "m" }, ...extra })).status).toBe(400);
  });

  it("accepts builtin and official MCP toolkits, and active skill versions only (AGENT_010)", async () => {
    const f = await availableSkillFile(t.api, "scan");
    const scanning = (await t.api("POST", "/skills", { file_id: f.id })).body;
    const early = await t.api("POST", "/agents", {
      name: "early",
      model: { id: "m" },
      skills: [{ type: "customer", skill_id: scanning.id, version: "1.0" }],
    });
    expect(early.body.error.code).toBe("AGENT_010");
    const s = await activeSkill("ready");
    const official = (await t.api("GET", "/skills?source=official")).body.data[0];
    const a = await agent("tools", {
      tools: [
        {
          type: "builtin_toolkit",
          default_config: { enabled: false },
          configs: [{ name: "bash", enabled: true }],
        },
        { type: "mcp_toolkit", mcp_server_name: "amap-maps", configs: [{ name: "maps_geo", enabled: true }] },
      ],
      mcp_servers: [{ type: "official", name: "amap-maps" }],
      skills: [
        { type: "customer", skill_id: s.id, version: "1.0" },
        { type: "official", skill_id: official.id, version: "1.0" },
      ],
    });
    expect(a.tools[1]).toMatchObject({ default_config: { enabled: false } });
  });

  it.each([
    ["catalog name, no version", { type: "official", skill_id: "pptx" }],
    ["catalog name with the catalog version", { type: "official", skill_id: "docx", version: "1.0" }],
  ])("accepts an official skill referenced by %s and echoes it back as sent", async (_n, ref) => {
    const a = await agent(`by-name-${ref.skill_id}`, { skills: [ref] });
    expect(a.skills).toEqual([ref]);
    expect((await t.api("GET", `/agents/${a.id}`)).body.skills).toEqual([ref]);
  });

  it("accepts an official skill referenced by catalog id without a version (echoed as sent)", async () => {
    const official = (await t.api("GET", "/skills?source=official")).body.data[0];
    const a = await agent("by-id", { skills: [{ type: "official", skill_id: official.id }] });
    expect(a.skills).toEqual([{ type: "official", skill_id: official.id }]);
  });

  it.each([
    ["an unknown catalog name", { type: "official", skill_id: "no-such-skill" }],
    ["a catalog name marked customer", { type: "customer", skill_id: "pptx", version: "1.0" }],
    ["a catalog version that does not exist", { type: "official", skill_id: "pptx", version: "9.0" }],
  ])("refuses %s (400)", async (_n, ref) => {
    const r = await t.api("POST", "/agents", { name: "bad-skill", model: { id: "m" }, skills: [ref] });
    expect(r.status).toBe(400);
  });

  it("keeps a roster of member ids (no versions, at most 20) and clears it with an empty array", async () => {
    const m = await agent("member");
    const c = await agent("coord", {
      multiagent: { type: "coordinator", agents: [{ type: "agent", id: m.id }] },
    });
    expect(c.multiagent).toEqual({ type: "coordinator", agents: [{ type: "agent", id: m.id }] });
    const pinned = await t.api("POST", "/agents", {
      name: "p",
      model: { id: "m" },
      multiagent: { type: "coordinator", agents: [{ type: "agent", id: m.id, version: 1 }] },
    });
    expect(pinned.status).toBe(400);
    const many = Array.from({ length: 21 }, (_, i) => ({ type: "agent", id: `agent_${i}` }));
    expect(
      (
        await t.api("POST", "/agents", {
          name: "q",
          model: { id: "m" },
          multiagent: { type: "coordinator", agents: many },
        })
      ).status,
    ).toBe(400);
    expect(
      (await t.api("POST", `/agents/${c.id}`, { version: 1, multiagent: [] })).body.multiagent,
    ).toBeNull();
  });
});

describe("provider_a deployments (docs/wire/provider-a.md §3.6)", () => {
  const initial = [{ role: "user", type: "message", content: [{ type: "text", text: "go" }] }];
  async function deployment(extra: Record<string, unknown> = {}) {
    const a = await agent();
    const e = await env();
    return t.api("POST", "/deployments", {
      name: "nightly",
      agent: { id: a.id },
      environment_id: e.id,
      initial_events: initial,
      metadata: {},
      ...extra,
    });
  }

  it("creates, runs into a session, pauses, unpauses, drops the schedule with null, archives", async () => {
    const d = (
      await deployment({ schedule: { type: "cron", expression: "0 3 * * *", timezone: "Asia/Shanghai" } })
    ).body;
    expect(d).toMatchObject({ id: expect.stringMatching(/^depl_/), type: "deployment", status: "active" });
    const run = await t.api("POST", `/deployments/${d.id}/run`, {});
    expect(run.body).toMatchObject({
      id: expect.stringMatching(/^drun_/),
      type: "deployment_run",
      session_id: expect.stringMatching(/^sesn_/),
      error: null,
    });
    expect((await t.api("POST", `/deployments/${d.id}/pause`, {})).body).toMatchObject({
      status: "paused",
      paused_reason: "manual",
    });
    expect((await t.api("GET", "/deployments?status=paused")).body.data).toHaveLength(1);
    expect((await t.api("POST", `/deployments/${d.id}/unpause`, {})).body.status).toBe("active");
    expect(
      (
        await t.api("POST", `/deployments/${d.id}`, {
          schedule: null,
          description: "",
          vault_ids: [],
          resources: [],
        })
      ).body.schedule,
    ).toBeNull();
    await t.api("POST", `/deployments/${d.id}/archive`, {});
    expect((await t.api("GET", "/deployments")).body).toEqual({ data: [], next_page: null });
    expect((await t.api("GET", "/deployments?include_archived=true")).body.data).toHaveLength(1);
  });

  it("fires cron slots on the simulated clock as runs, skipping paused time", async () => {
    const d = (
      await deployment({ schedule: { type: "cron", expression: "30 * * * *", timezone: "Asia/Shanghai" } })
    ).body;
    const runs = async () => (await t.control("GET", "/state")).body.deployment_runs;
    await t.control("POST", "/clock", { advance_seconds: 2 * 3600 });
    await t.api("GET", "/deployments");
    const fired = await runs();
    expect(fired.map((r: any) => r.trigger_context.type)).toEqual(["schedule", "schedule"]);
    expect(fired[0].trigger_context.scheduled_at).toMatch(/:30:00\.000\+08:00$/);
    await t.api("POST", `/deployments/${d.id}/pause`, {});
    await t.control("POST", "/clock", { advance_seconds: 3600 });
    await t.api("POST", `/deployments/${d.id}/unpause`, {});
    expect(await runs()).toHaveLength(2);
    expect(
      (
        await t.api("POST", "/deployments", {
          name: "bad",
          agent: { id: d.agent.id },
          environment_id: d.environment_id,
          initial_events: initial,
          schedule: { type: "cron", expression: "61 * * * *" },
        })
      ).status,
    ).toBe(400);
  });

  it.each([
    ["an agent id string", { agent: "agent_x" }],
    ["no message event", { initial_events: [] }],
    ["a user.define_outcome event", { initial_events: [{ type: "user.define_outcome", description: "x" }] }],
    ["a file still checking", "checking"],
    ["a mount path outside /mnt", "outside"],
  ])("rejects %s", async (_l, extra) => {
    let body: Record<string, unknown> = typeof extra === "object" ? extra : {};
    if (typeof extra === "string") {
      await t.control("POST", "/seed", { settings: extra === "checking" ? {} : { file_audit_polls: 0 } });
      const f = await upload(t.api, "data.csv", new Uint8Array([1]));
      body = {
        resources: [
          { type: "file", file_id: f.id, mount_path: extra === "checking" ? "data.csv" : "/data/data.csv" },
        ],
      };
    }
    expect((await deployment(body)).status).toBe(400);
  });
});

describe("provider_a sessions and events (docs/wire/provider-a.md §3.7)", () => {
  it("creates with a bare agent id and /mnt file mounts, sends input, lists events, streams only new ones", async () => {
    await t.control("POST", "/seed", { settings: { file_audit_polls: 0 } });
    const a = await agent();
    const e = await env();
    const f = await upload(t.api, "data.csv", new Uint8Array([1]));
    const s = await t.api("POST", "/sessions", {
      agent: a.id,
      environment_id: e.id,
      resources: [{ type: "file", file_id: f.id, mount_path: "data/data.csv" }],
    });
    expect(s.body).toMatchObject({
      id: expect.stringMatching(/^sesn_/),
      status: "idle",
      agent: { id: a.id, type: "agent", version: 1 },
    });
    expect(s.body.resources[0].mount_path).toBe("/mnt/data/data.csv");
    const input = [{ role: "user", type: "message", content: [{ type: "text", text: "hello" }] }];
    const stream = readSse(
      `${t.sim.url}/sessions/${s.body.id}/events/stream`,
      { authorization: `Bearer ${KEY}` },
      4,
    );
    await new Promise((r) => setTimeout(r, 50));
    const sent = await t.api("POST", `/sessions/${s.body.id}/events`, { input });
    expect(sent.body.id).toEqual(expect.any(String));
    const frames = await stream;
    expect(frames.map((x) => x.type)).toEqual(["message", "session_status", "message", "session_status"]);
    expect(frames[1].content[0].data.session_status).toBe("running");
    const p1 = await t.api("GET", `/sessions/${s.body.id}/events?limit=2&after_id=${sent.body.id}`);
    expect(p1.body.data[0].id).toBe(sent.body.id);
    expect(p1.body.next_page).toEqual(expect.any(String));
    expect((await t.api("GET", `/sessions?agent_id=${a.id}`)).body.data).toHaveLength(1);
    expect((await t.api("DELETE", `/sessions/${s.body.id}`)).body).toEqual({
      id: s.body.id,
      type: "session_deleted",
    });
  });

  it("rejects an agent object, a git repository resource and absolute paths outside /mnt", async () => {
    const a = await agent();
    const e = await env();
    expect((await t.api("POST", "/sessions", { agent: { id: a.id }, environment_id: e.id })).status).toBe(
      400,
    );
    expect(
      (
        await t.api("POST", "/sessions", {
          agent: a.id,
          environment_id: e.id,
          resources: [{ type: "github_repository", url: "https://github.com/a/b" }],
        })
      ).status,
    ).toBe(400);
  });
});

describe("provider_a /_sim/state", () => {
  it("dumps every object, archived ones included, with scan bookkeeping but no secret", async () => {
    const a = await agent();
    await t.api("POST", `/agents/${a.id}/archive`);
    const dump = (await t.control("GET", "/state")).body;
    expect(dump.agents[0]).toMatchObject({ id: a.id, archived_at: expect.any(String) });
    // Every collection the state keeps, plus the session events and the simulator's settings.
    expect(Object.keys(dump)).toEqual(expect.arrayContaining([...COLLECTIONS, "events", "settings"]));
    // API keys are never dumped (docs/sims.md), the default nor a seeded one.
    await t.control("POST", "/seed", { api_keys: ["seeded-a-key"] });
    const text = JSON.stringify((await t.control("GET", "/state")).body);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain("seeded-a-key");
  });
});
