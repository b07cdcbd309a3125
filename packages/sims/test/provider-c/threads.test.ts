import { describe, expect, it } from "vitest";
import { streamUntilIdle, useWire } from "../support/wire.js";
import { fixtures, headersFor, openC } from "./setup.js";

const w = useWire(openC);

async function coordinatorSession() {
  const f = fixtures(w);
  const m1 = await f.agent("researcher");
  const m2 = await f.agent("writer");
  const lead = await f.agent("lead", {
    multiagent: { type: "coordinator", agents: [m1.id, m2.id, { type: "self" }] },
  });
  const session = await w.ok("POST", "/sessions", { agent: lead.id, environment_id: (await f.env()).id });
  return { m1, m2, lead, session };
}

describe("docs/wire/provider-c.md §3.8 session threads", () => {
  it("a coordinator's session has one thread per roster agent: list / get", async () => {
    const { m1, m2, session } = await coordinatorSession();
    const list = await w.ok("GET", `/sessions/${session.id}/threads`);
    expect(list.next_page).toBeNull();
    expect(list.data.map((t: any) => t.agent.id).sort()).toEqual([m1.id, m2.id].sort());
    const t = list.data[0];
    expect(t).toMatchObject({
      id: expect.stringMatching(/^sthr_/),
      type: "session_thread",
      session_id: session.id,
      status: "idle",
    });
    expect(await w.ok("GET", `/sessions/${session.id}/threads/${t.id}`)).toEqual(t);
  });

  it("a session of a plain agent has no threads; a thread of another session → 404", async () => {
    const { session } = await coordinatorSession();
    const f = fixtures(w);
    const plain = await w.ok("POST", "/sessions", {
      agent: (await f.agent("solo")).id,
      environment_id: (await f.env("e2")).id,
    });
    expect((await w.ok("GET", `/sessions/${plain.id}/threads`)).data).toEqual([]);
    const [t] = (await w.ok("GET", `/sessions/${session.id}/threads`)).data;
    expect((await w.call("GET", `/sessions/${plain.id}/threads/${t.id}`)).status).toBe(404);
  });

  it("thread events and thread stream carry the delegated turn", async () => {
    const { session } = await coordinatorSession();
    const [t] = (await w.ok("GET", `/sessions/${session.id}/threads`)).data;
    const { text: buffer } = await streamUntilIdle(
      w,
      `/sessions/${session.id}/threads/${t.id}/stream`,
      headersFor("/sessions"),
      () =>
        w.ok("POST", `/sessions/${session.id}/events`, {
          events: [{ type: "user.message", content: [{ type: "text", text: "split the work" }] }],
        }),
    );
    expect(buffer).toContain("handled: split the work");
    const events = await w.ok("GET", `/sessions/${session.id}/threads/${t.id}/events`);
    expect(events.data.map((e: any) => e.type)).toEqual([
      "session.status_running",
      "agent.message",
      "session.status_idle",
    ]);
  });

  it("archive a thread: it stays readable, leaves the default list and takes no more turns", async () => {
    const { session } = await coordinatorSession();
    const [t] = (await w.ok("GET", `/sessions/${session.id}/threads`)).data;
    expect((await w.ok("POST", `/sessions/${session.id}/threads/${t.id}/archive`)).archived_at).toEqual(
      expect.any(String),
    );
    expect((await w.ok("GET", `/sessions/${session.id}/threads`)).data.map((x: any) => x.id)).not.toContain(
      t.id,
    );
    expect(
      (await w.ok("GET", `/sessions/${session.id}/threads?include_archived=true`)).data.map((x: any) => x.id),
    ).toContain(t.id);
    await w.ok("POST", `/sessions/${session.id}/events`, {
      events: [{ type: "user.message", content: [{ type: "text", text: "x" }] }],
    });
    expect((await w.ok("GET", `/sessions/${session.id}/threads/${t.id}/events`)).data).toEqual([]);
  });

  it("deleting the session deletes its threads (no orphans in /_sim/state)", async () => {
    const { session } = await coordinatorSession();
    await w.ok("DELETE", `/sessions/${session.id}`);
    const state = (await w.control("GET", "/state")).body;
    expect(state.session_threads).toEqual([]);
    expect(state.thread_events).toEqual([]);
  });
});
