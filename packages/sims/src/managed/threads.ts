import type { Router } from "express";
import { agentSnapshot } from "./agent-snapshot.js";
import { archive, listPage, param } from "./common.js";
import { notFound } from "./errors.js";
import { appendEvent, closeStreams, eventPage, streamEvents } from "./events.js";
import type { Kit, Obj } from "./state.js";

/**
 * Session threads: a session of a coordinator agent gets one thread per roster member.
 * Each user turn is delegated to every thread, which plays its own scripted turn, so thread lists,
 * thread events and thread streams all have something real to show.
 */
export function createThreads(kit: Kit, session: Obj): void {
  const s = kit.state();
  const coordinator = s.agents.get(session.agent.id);
  for (const member of coordinator?.multiagent?.agents ?? []) {
    if (member.type !== "agent") continue;
    const now = kit.now();
    const thread: Obj = {
      id: kit.newId("session_thread"),
      type: "session_thread",
      session_id: session.id,
      agent: { type: "agent", id: member.id, version: member.version },
      status: "idle",
      created_at: now,
      updated_at: now,
    };
    if (kit.dialect.name === "provider_c") {
      // SDK 1.12's BetaManagedAgentsSessionThread: the resolved agent and these fields are required.
      thread.agent = agentSnapshot(kit, thread.agent, false);
      thread.parent_thread_id = null;
      thread.workflow_run_id = null;
      thread.stats = { active_seconds: 0, duration_seconds: 0 };
      thread.usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0 };
    }
    if (kit.dialect.archivable.has("session_thread")) thread.archived_at = null;
    s.sessionThreads.set(thread.id, thread);
    s.threadEvents.set(thread.id, []);
  }
}

export function playThreadTurns(kit: Kit, session: Obj, text: string): void {
  const s = kit.state();
  for (const thread of s.sessionThreads.values()) {
    if (thread.session_id !== session.id || thread.archived_at) continue;
    const name = s.agents.get(thread.agent.id)?.name ?? thread.agent.id;
    const emit = (type: string, fields: Record<string, any>) =>
      appendEvent(kit, s.threadEvents, thread.id, type, fields);
    thread.status = "running";
    emit("session.status_running", {});
    emit("agent.message", { content: [{ type: "text", text: `(simulated) ${name} handled: ${text}` }] });
    thread.status = "idle";
    emit("session.status_idle", { stop_reason: { type: "end_turn" } });
    thread.updated_at = kit.now();
  }
}

export function deleteThreads(kit: Kit, sessionId: string): void {
  const s = kit.state();
  for (const t of [...s.sessionThreads.values()]) {
    if (t.session_id !== sessionId) continue;
    s.sessionThreads.delete(t.id);
    s.threadEvents.delete(t.id);
    closeStreams(kit, t.id);
  }
}

export function threadRoutes(router: Router, kit: Kit, session: (id: string) => Obj): void {
  const thread = (sessionId: string, id: string) => {
    const t = kit.state().sessionThreads.get(id);
    if (!t || t.session_id !== sessionId) throw notFound("session thread", id);
    return t;
  };
  const both = (req: Parameters<Parameters<Router["get"]>[1]>[0]) =>
    thread(session(param(req, "id")).id, param(req, "tid"));

  router.get("/sessions/:id/threads", (req, res) => {
    const s = session(param(req, "id"));
    res.json(
      listPage(kit, req, kit.state().sessionThreads.values(), {
        archivable: kit.dialect.archivable.has("session_thread"),
        filter: (t) => t.session_id === s.id,
      }),
    );
  });
  router.get("/sessions/:id/threads/:tid", (req, res) => {
    res.json(both(req));
  });
  router.get("/sessions/:id/threads/:tid/events", (req, res) => {
    res.json(eventPage(kit, req, kit.state().threadEvents.get(both(req).id) ?? []));
  });
  router.get("/sessions/:id/threads/:tid/stream", (req, res) => {
    streamEvents(kit, req, res, both(req).id);
  });
  if (kit.dialect.archivable.has("session_thread")) {
    router.post("/sessions/:id/threads/:tid/archive", (req, res) => {
      res.json(archive(kit, both(req)));
    });
  }
}
