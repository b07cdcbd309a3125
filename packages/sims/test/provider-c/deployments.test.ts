import { describe, expect, it } from "vitest";
import { fileForm, streamUntilIdle, userText as text, useWire } from "../support/wire.js";
import { fixtures, headersFor, KEY, openC } from "./setup.js";

const w = useWire(openC);

async function basics() {
  const f = fixtures(w);
  return { agent: await f.agent(), env: await f.env(), vault: await f.vault(), store: await f.store() };
}

async function deployment(extra: object = {}) {
  const b = await basics();
  const d = await w.ok("POST", "/deployments", {
    name: "nightly",
    agent: b.agent.id,
    environment_id: b.env.id,
    initial_events: [text("run the report")],
    ...extra,
  });
  return { ...b, d };
}

describe("docs/wire/provider-c.md §3.7 deployment", () => {
  it("create with the documented body; get; list", async () => {
    const b = await basics();
    const file = await w.ok("POST", "/files", { form: fileForm("rubric.md", "r") });
    const d = await w.ok("POST", "/deployments", {
      name: "nightly",
      description: "every night",
      agent: { type: "agent", id: b.agent.id, version: 1 },
      environment_id: b.env.id,
      vault_ids: [b.vault.id],
      initial_events: [
        text("go"),
        { type: "system.message", content: [{ type: "text", text: "sys" }] },
        {
          type: "user.define_outcome",
          description: "done",
          rubric: { type: "file", file_id: file.id },
          max_iterations: 3,
        },
      ],
      resources: [
        { type: "file", file_id: file.id, mount_path: "docs/rubric.md" },
        {
          type: "github_repository",
          url: "https://github.com/o/r",
          authorization_token: "ghp_secret",
          checkout: { type: "branch", name: "main" },
        },
        { type: "memory_store", memory_store_id: b.store.id, access: "read_only" },
      ],
      schedule: { type: "cron", expression: "0 3 * * 1-5", timezone: "Europe/Berlin" },
      metadata: { "agents.project": "p" },
    });
    expect(d).toMatchObject({
      type: "deployment",
      status: "active",
      paused_reason: null,
      archived_at: null,
      agent: { type: "agent", id: b.agent.id, version: 1 },
      schedule: { type: "cron", expression: "0 3 * * 1-5", timezone: "Europe/Berlin" },
      resources: [
        { type: "file", file_id: file.id, mount_path: "/workspace/docs/rubric.md" },
        {
          type: "github_repository",
          url: "https://github.com/o/r",
          mount_path: "/workspace/r",
          checkout: { type: "branch", name: "main" },
        },
        {
          type: "memory_store",
          memory_store_id: b.store.id,
          access: "read_only",
          mount_path: "/mnt/memory/notes",
        },
      ],
    });
    expect(JSON.stringify(d)).not.toContain("ghp_secret");
    expect(await w.ok("GET", `/deployments/${d.id}`)).toEqual(d);
    expect((await w.ok("GET", `/deployments?agent_id=${b.agent.id}`)).data).toEqual([d]);
    expect((await w.ok("GET", "/deployments?agent_id=agent_other")).data).toEqual([]);
  });

  it.each([
    ["no initial_events", { initial_events: undefined }],
    ["a 6-field cron", { schedule: { type: "cron", expression: "0 0 3 * * *", timezone: "UTC" } }],
    ["@daily", { schedule: { type: "cron", expression: "@daily", timezone: "UTC" } }],
    ["L in day of month", { schedule: { type: "cron", expression: "0 3 L * *", timezone: "UTC" } }],
    ["a missing timezone", { schedule: { type: "cron", expression: "0 3 * * *" } }],
    [
      "a non-IANA timezone",
      { schedule: { type: "cron", expression: "0 3 * * *", timezone: "Mars/Olympus" } },
    ],
    ["minute 60", { schedule: { type: "cron", expression: "60 3 * * *", timezone: "UTC" } }],
    [
      "a .git repository URL",
      { resources: [{ type: "github_repository", url: "https://github.com/o/r.git" }] },
    ],
    ["a tunnel resource", { resources: [{ type: "tunnel", tunnel_id: "t" }] }],
    ["an unknown event type", { initial_events: [{ type: "agent.message", content: [] }] }],
    ["a missing environment", { environment_id: "env_missing" }],
    ["a missing vault", { vault_ids: ["vlt_missing"] }],
    [
      "absolute mount outside /workspace",
      { resources: [{ type: "file", file_id: "x", mount_path: "/etc/x" }] },
    ],
  ])("create rejected: %s → 400", async (_n, extra) => {
    const b = await basics();
    const r = await w.call("POST", "/deployments", {
      json: { name: "d", agent: b.agent.id, environment_id: b.env.id, initial_events: [text("x")], ...extra },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.type).toBe("invalid_request_error");
  });

  it("update: omitted fields preserved; schedule null → manual; resources [] clears; metadata patch", async () => {
    const { d, store } = await deployment({
      schedule: { type: "cron", expression: "*/5 * * * *", timezone: "UTC" },
      metadata: { a: "1", b: "2" },
    });
    await w.ok("POST", `/deployments/${d.id}`, {
      resources: [{ type: "memory_store", memory_store_id: store.id }],
    });
    const u = await w.ok("POST", `/deployments/${d.id}`, {
      schedule: null,
      description: "",
      metadata: { b: null },
    });
    expect(u).toMatchObject({ name: "nightly", schedule: null, description: "", metadata: { a: "1" } });
    expect(u.resources).toHaveLength(1);
    expect((await w.ok("POST", `/deployments/${d.id}`, { resources: [] })).resources).toEqual([]);
    await w.ok("POST", `/deployments/${d.id}`, {
      resources: [{ type: "memory_store", memory_store_id: store.id }],
    });
    expect((await w.ok("POST", `/deployments/${d.id}`, { resources: null })).resources).toEqual([]);
  });

  it("pause / unpause; status filter", async () => {
    const { d } = await deployment();
    const paused = await w.ok("POST", `/deployments/${d.id}/pause`);
    expect(paused).toMatchObject({ status: "paused", paused_reason: { type: "manual" } });
    expect((await w.ok("GET", "/deployments?status=paused")).data.map((x: any) => x.id)).toEqual([d.id]);
    expect((await w.ok("GET", "/deployments?status=active")).data).toEqual([]);
    expect(await w.ok("POST", `/deployments/${d.id}/unpause`)).toMatchObject({
      status: "active",
      paused_reason: null,
    });
  });

  it("run: a deployment_run with a session_id and no error; the session carries the deployment", async () => {
    const { d, agent } = await deployment();
    const run = await w.ok("POST", `/deployments/${d.id}/run`);
    expect(run).toEqual({
      id: expect.stringMatching(/^drun_/),
      type: "deployment_run",
      deployment_id: d.id,
      agent: { type: "agent", id: agent.id, version: 1 },
      session_id: expect.stringMatching(/^sesn_/),
      error: null,
      trigger_context: { type: "manual" },
      created_at: expect.any(String),
    });
    const session = await w.ok("GET", `/sessions/${run.session_id}`);
    expect(session.deployment_id).toBe(d.id);
    const events = await w.ok("GET", `/sessions/${run.session_id}/events`);
    expect(events.data[0]).toMatchObject({
      type: "user.message",
      content: [{ type: "text", text: "run the report" }],
    });
    expect((await w.ok("GET", `/sessions?deployment_id=${d.id}`)).data.map((s: any) => s.id)).toEqual([
      run.session_id,
    ]);
  });

  it("run: an archived agent gives a run with error and no session (exactly one of the two)", async () => {
    const { d, agent } = await deployment();
    await w.ok("POST", `/agents/${agent.id}/archive`);
    const run = await w.ok("POST", `/deployments/${d.id}/run`);
    expect(run.session_id).toBeNull();
    expect(run.error).toMatchObject({ type: expect.any(String), message: expect.any(String) });
  });

  it("runs: GET /deployment_runs[?deployment_id=] and /deployment_runs/{id}", async () => {
    const { d } = await deployment();
    const r1 = await w.ok("POST", `/deployments/${d.id}/run`);
    const r2 = await w.ok("POST", `/deployments/${d.id}/run`);
    expect((await w.ok("GET", `/deployment_runs?deployment_id=${d.id}`)).data.map((r: any) => r.id)).toEqual([
      r2.id,
      r1.id,
    ]);
    expect(await w.ok("GET", `/deployment_runs/${r1.id}`)).toEqual(r1);
    expect((await w.call("GET", "/deployment_runs/drun_missing")).status).toBe(404);
  });

  it("archive (= destroy): runs refused afterwards", async () => {
    const { d } = await deployment();
    await w.ok("POST", `/deployments/${d.id}/archive`);
    expect((await w.call("POST", `/deployments/${d.id}/run`)).status).toBe(400);
  });

  it("schedule: moving the simulated clock past cron slots starts runs; a paused deployment does not fire", async () => {
    const { d } = await deployment({
      schedule: { type: "cron", expression: "*/10 * * * *", timezone: "Asia/Tokyo" },
    });
    const { d: other } = await deployment({
      schedule: { type: "cron", expression: "*/10 * * * *", timezone: "UTC" },
    });
    await w.ok("POST", `/deployments/${other.id}/pause`);
    await w.control("POST", "/clock", { advance_seconds: 3600 });
    const runs = await w.ok("GET", `/deployment_runs?deployment_id=${d.id}&limit=100`);
    expect(runs.data.length).toBeGreaterThanOrEqual(5);
    expect(runs.data.length).toBeLessThanOrEqual(6);
    expect(runs.data[0].trigger_context).toMatchObject({
      type: "schedule",
      scheduled_at: expect.any(String),
    });
    expect(new Date(runs.data[0].trigger_context.scheduled_at).getUTCMinutes() % 10).toBe(0);
    expect((await w.ok("GET", `/deployment_runs?deployment_id=${other.id}`)).data).toEqual([]);
  });
});

describe("docs/wire/provider-c.md §3.8 session and events", () => {
  it("create / get / list filters / update / archive / delete", async () => {
    const b = await basics();
    const s = await w.ok("POST", "/sessions", {
      agent: b.agent.id,
      environment_id: b.env.id,
      title: "t",
      vault_ids: [b.vault.id],
      resources: [{ type: "memory_store", memory_store_id: b.store.id }],
      metadata: { a: "1" },
    });
    expect(s).toMatchObject({
      type: "session",
      status: "idle",
      agent: { type: "agent", id: b.agent.id, version: 1 },
      environment_id: b.env.id,
      vault_ids: [b.vault.id],
      deployment_id: null,
      archived_at: null,
    });
    for (const q of [
      `agent_id=${b.agent.id}`,
      "agent_version=1",
      `memory_store_id=${b.store.id}`,
      "statuses=idle,running",
    ]) {
      expect(
        (await w.ok("GET", `/sessions?${q}`)).data.map((x: any) => x.id),
        q,
      ).toEqual([s.id]);
    }
    expect((await w.ok("GET", "/sessions?statuses=terminated")).data).toEqual([]);
    expect((await w.ok("POST", `/sessions/${s.id}`, { title: "t2" })).title).toBe("t2");
  });

  it("list is bidirectional: next_page and prev_page", async () => {
    const b = await basics();
    for (let i = 0; i < 3; i++)
      await w.ok("POST", "/sessions", { agent: b.agent.id, environment_id: b.env.id });
    const p1 = await w.ok("GET", "/sessions?limit=2");
    expect(p1.prev_page).toBeNull();
    const p2 = await w.ok("GET", `/sessions?limit=2&page=${p1.next_page}`);
    expect(p2.next_page).toBeNull();
    expect(p2.prev_page).toEqual(expect.any(String));
    const back = await w.ok("GET", `/sessions?limit=2&page=${p2.prev_page}`);
    expect(back.data.map((x: any) => x.id)).toEqual(p1.data.map((x: any) => x.id));
  });

  it("send events → stored with ids; a scripted agent turn follows; list events paginates; after_id → 400", async () => {
    const b = await basics();
    const s = await w.ok("POST", "/sessions", { agent: b.agent.id, environment_id: b.env.id });
    const sent = await w.ok("POST", `/sessions/${s.id}/events`, { events: [text("hello")] });
    expect(sent.data[0]).toMatchObject({ id: expect.stringMatching(/^sevt_/), type: "user.message" });
    const all = await w.ok("GET", `/sessions/${s.id}/events`);
    expect(all.data.map((e: any) => e.type)).toEqual([
      "user.message",
      "session.status_running",
      "agent.message",
      "session.status_idle",
    ]);
    const page = await w.ok("GET", `/sessions/${s.id}/events?limit=3`);
    const rest = await w.ok("GET", `/sessions/${s.id}/events?limit=3&page=${page.next_page}`);
    expect([...page.data, ...rest.data]).toEqual(all.data);
    const desc = await w.ok("GET", `/sessions/${s.id}/events?order=desc&limit=1`);
    expect(desc.data[0].type).toBe("session.status_idle");
    expect((await w.call("GET", `/sessions/${s.id}/events?after_id=x`)).status).toBe(400);
    expect(
      (await w.call("POST", `/sessions/${s.id}/events`, { json: { events: [{ type: "agent.message" }] } }))
        .status,
    ).toBe(400);
  });

  it("stream: SSE data frames with ids, only events after connect", async () => {
    const b = await basics();
    const s = await w.ok("POST", "/sessions", { agent: b.agent.id, environment_id: b.env.id });
    await w.ok("POST", `/sessions/${s.id}/events`, { events: [text("before")] });
    const { res, text: buffer } = await streamUntilIdle(
      w,
      `/sessions/${s.id}/events/stream`,
      { ...headersFor("/sessions"), accept: "text/event-stream" },
      () => w.ok("POST", `/sessions/${s.id}/events`, { events: [text("after")] }),
    );
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const frames = buffer.split("\n\n").filter((f) => f.includes("data:"));
    const events = frames.map((f) =>
      JSON.parse(
        f
          .split("\n")
          .find((l) => l.startsWith("data: "))!
          .slice(6),
      ),
    );
    expect(events.map((e) => e.type)).toEqual([
      "user.message",
      "session.status_running",
      "agent.message",
      "session.status_idle",
    ]);
    expect(events[0].content[0].text).toBe("after");
    expect(frames[0]).toMatch(/^id: sevt_/);
  });

  it("stream: deleting the session ends its open streams", async () => {
    const b = await basics();
    const s = await w.ok("POST", "/sessions", { agent: b.agent.id, environment_id: b.env.id });
    const res = await fetch(`${w.sim.url}/sessions/${s.id}/events/stream`, {
      headers: {
        "x-api-key": KEY,
        "anthropic-version": "2023-06-01",
        "anthropic-beta": "managed-agents-2026-04-01",
      },
    });
    await w.ok("DELETE", `/sessions/${s.id}`);
    const reader = res.body!.getReader();
    let done = false;
    while (!done) done = (await reader.read()).done;
    expect(done).toBe(true);
  });

  it("session resources: list / add / get / update / delete", async () => {
    const b = await basics();
    const s = await w.ok("POST", "/sessions", { agent: b.agent.id, environment_id: b.env.id });
    const file = await w.ok("POST", "/files", { form: fileForm("a.md", "x") });
    const r = await w.ok("POST", `/sessions/${s.id}/resources`, { type: "file", file_id: file.id });
    expect(r).toMatchObject({ id: expect.stringMatching(/^sesrsc_/), mount_path: "/workspace/a.md" });
    expect((await w.ok("GET", `/sessions/${s.id}/resources`)).data).toEqual([r]);
    expect(
      (await w.ok("POST", `/sessions/${s.id}/resources/${r.id}`, { mount_path: "b.md" })).mount_path,
    ).toBe("/workspace/b.md");
    expect(await w.ok("DELETE", `/sessions/${s.id}/resources/${r.id}`)).toEqual({
      id: r.id,
      type: "session_resource_deleted",
    });
    expect((await w.call("GET", `/sessions/${s.id}/resources/${r.id}`)).status).toBe(404);
  });

  it.each([
    [
      "an archived agent",
      async (b: any) => {
        await w.ok("POST", `/agents/${b.agent.id}/archive`);
        return { agent: b.agent.id, environment_id: b.env.id };
      },
    ],
    ["a missing environment", async (b: any) => ({ agent: b.agent.id, environment_id: "env_missing" })],
    [
      "a pinned version that does not exist",
      async (b: any) => ({ agent: { type: "agent", id: b.agent.id, version: 9 }, environment_id: b.env.id }),
    ],
  ])("create rejected: %s → 400", async (_n, body) => {
    const b = await basics();
    expect((await w.call("POST", "/sessions", { json: await body(b) })).status).toBe(400);
  });
});
