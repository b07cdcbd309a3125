import { describe, expect, it } from "vitest";
import { fileForm, streamUntilIdle, userText as text, useWire } from "../support/wire.js";
import { fixtures, KEY, openD } from "./setup.js";

const w = useWire(openD);

describe("docs/wire/provider-d.md §3.7 session and events", () => {
  it("create (agent id or object) / get / list by agent_id / delete; file mounts under /mnt", async () => {
    const f = fixtures(w);
    const agent = await f.agent();
    const env = await f.env();
    const store = await f.store();
    const file = await w.ok("POST", "/files", {
      form: fileForm("a.md", "x", "text/markdown", { purpose: "agent" }),
    });
    const s = await w.ok("POST", "/sessions", {
      agent: { id: agent.id, type: "agent", version: 1 },
      environment_id: env.id,
      title: "t",
      resources: [
        { type: "memory_store", memory_store_id: store.id },
        { type: "file", file_id: file.id, mount_path: "data/a.md" },
      ],
    });
    expect(s).toMatchObject({
      id: expect.stringMatching(/^sesn-/),
      status: "idle",
      resources: [{ type: "memory_store" }, { mount_path: "/mnt/data/a.md" }],
    });
    const s2 = await w.ok("POST", "/sessions", { agent: agent.id, environment_id: env.id });
    expect((await w.ok("GET", `/sessions?agent_id=${agent.id}&limit=1`)).next_page).toEqual(
      expect.any(String),
    );
    const listed = await w.ok("GET", "/sessions");
    expect(listed).not.toHaveProperty("prev_page");
    expect(listed.data.map((x: any) => x.id).sort()).toEqual([s.id, s2.id].sort());
    expect(await w.ok("DELETE", `/sessions/${s.id}`)).toEqual({ id: s.id, type: "session_deleted" });
  });

  it("git repository resources and memory access/instructions are not supported → 400", async () => {
    const f = fixtures(w);
    const agent = await f.agent();
    const env = await f.env();
    const store = await f.store();
    for (const resources of [
      [{ type: "github_repository", url: "https://github.com/o/r" }],
      [{ type: "memory_store", memory_store_id: store.id, access: "read_only" }],
    ]) {
      expect(
        (await w.call("POST", "/sessions", { json: { agent: agent.id, environment_id: env.id, resources } }))
          .status,
      ).toBe(400);
    }
  });

  it("events: user.message is the only outbound type; list pages; stream sends post-connect events", async () => {
    const f = fixtures(w);
    const s = await w.ok("POST", "/sessions", {
      agent: (await f.agent()).id,
      environment_id: (await f.env()).id,
    });
    expect(
      (await w.call("POST", `/sessions/${s.id}/events`, { json: { events: [{ type: "user.interrupt" }] } }))
        .status,
    ).toBe(400);
    const { text: buffer } = await streamUntilIdle(
      w,
      `/sessions/${s.id}/events/stream`,
      { authorization: `Bearer ${KEY}` },
      () => w.ok("POST", `/sessions/${s.id}/events`, { events: [text("hi")] }),
    );
    expect(buffer).toContain('"type":"agent.message"');
    const events = await w.ok("GET", `/sessions/${s.id}/events?limit=2&order=asc`);
    expect(events.data.map((e: any) => e.type)).toEqual(["user.message", "session.status_running"]);
    expect(events.next_page).toEqual(expect.any(String));
  });
});

describe("docs/wire/provider-d.md §3.7 upstream session endpoints the reference client does not call", () => {
  it("session update (title, metadata replaced, vault_ids); no archive", async () => {
    const f = fixtures(w);
    const s = await w.ok("POST", "/sessions", {
      agent: (await f.agent()).id,
      environment_id: (await f.env()).id,
      metadata: { a: "1" },
    });
    const v = await f.vault();
    const u = await w.ok("POST", `/sessions/${s.id}`, {
      title: "t2",
      metadata: { b: "2" },
      vault_ids: [v.id],
    });
    expect(u).toMatchObject({ title: "t2", metadata: { b: "2" }, vault_ids: [v.id] });
    expect((await w.call("POST", `/sessions/${s.id}/archive`)).status).toBe(404);
  });

  it("session resources: list / add / delete", async () => {
    const f = fixtures(w);
    const s = await w.ok("POST", "/sessions", {
      agent: (await f.agent()).id,
      environment_id: (await f.env()).id,
    });
    const store = await f.store();
    const r = await w.ok("POST", `/sessions/${s.id}/resources`, {
      type: "memory_store",
      memory_store_id: store.id,
    });
    expect(r).toEqual({
      id: expect.stringMatching(/^sesrsc-/),
      type: "memory_store",
      memory_store_id: store.id,
    });
    expect((await w.ok("GET", `/sessions/${s.id}/resources`)).data).toEqual([r]);
    expect(await w.ok("DELETE", `/sessions/${s.id}/resources/${r.id}`)).toEqual({
      id: r.id,
      type: "session_resource_deleted",
    });
  });

  it("multi-agent threads: list / detail / events / stream; no thread archive", async () => {
    const f = fixtures(w);
    const m = await f.agent("member");
    const lead = await f.agent("lead", {
      multiagent: { type: "coordinator", agents: [{ type: "agent", id: m.id }] },
    });
    const s = await w.ok("POST", "/sessions", { agent: lead.id, environment_id: (await f.env()).id });
    const [t] = (await w.ok("GET", `/sessions/${s.id}/threads`)).data;
    expect(t).toMatchObject({ id: expect.stringMatching(/^sthr-/), agent: { id: m.id } });
    expect(t).not.toHaveProperty("archived_at");
    expect(await w.ok("GET", `/sessions/${s.id}/threads/${t.id}`)).toEqual(t);
    const { text: buffer } = await streamUntilIdle(
      w,
      `/sessions/${s.id}/threads/${t.id}/stream`,
      { authorization: `Bearer ${KEY}` },
      () => w.ok("POST", `/sessions/${s.id}/events`, { events: [text("go")] }),
    );
    expect(buffer).toContain("member handled: go");
    expect((await w.ok("GET", `/sessions/${s.id}/threads/${t.id}/events`)).data).toHaveLength(3);
    expect((await w.call("POST", `/sessions/${s.id}/threads/${t.id}/archive`)).status).toBe(404);
  });
});
