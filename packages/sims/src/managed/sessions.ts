import type { Router } from "express";
import { agentSnapshot } from "./agent-snapshot.js";
import { archive, assertNotArchived, deleted, listPage, lookup, param } from "./common.js";
import { invalid, notFound } from "./errors.js";
import { appendEvent, closeStreams, eventPage, streamEvents } from "./events.js";
import { queryInt, queryList, queryString } from "./http.js";
import { parseResources } from "./resources.js";
import type { Kit, Obj } from "./state.js";
import { createThreads, deleteThreads, playThreadTurns, threadRoutes } from "./threads.js";
import { confirmTool, interruptTurn, playTurn, refuseCutStream, stopTurns } from "./turns.js";
import {
  allowOnly,
  body,
  checkString,
  createMetadata,
  idArray,
  type Json,
  type JsonObject,
  optString,
  requireObject,
  updateMetadata,
} from "./validate.js";

/** `agent` as a session or deployment names it: an id, or `{type:"agent", id, version}`. */
export function agentRef(v: unknown, kit: Kit, where = "agent"): JsonObject {
  let id: string;
  let version: number | undefined;
  if (typeof v === "string") id = v;
  else {
    const r = requireObject(v, where);
    allowOnly(r, ["type", "id", "version"], where);
    if (r.type !== undefined && r.type !== "agent") throw invalid(`${where}.type: must be "agent"`);
    id = checkString(r.id, `${where}.id`, { min: 1 });
    if (r.version !== undefined) {
      if (!Number.isInteger(r.version)) throw invalid(`${where}.version: expected an integer`);
      version = r.version as number;
    }
  }
  const agent = kit.state().agents.get(id);
  if (!agent) throw invalid(`${where}: agent ${JSON.stringify(id)} not found`);
  if (agent.archived_at) throw invalid(`${where}: agent ${id} is archived`);
  if (version !== undefined && (version < 1 || version > agent.version)) {
    throw invalid(`${where}.version: agent ${id} has no version ${version}`);
  }
  return { type: "agent", id, version: version ?? agent.version };
}

export function environmentRef(v: unknown, kit: Kit): string {
  const id = checkString(v, "environment_id", { min: 1 });
  const env = kit.state().environments.get(id);
  if (!env) throw invalid(`environment_id: environment ${JSON.stringify(id)} not found`);
  if (env.archived_at) throw invalid(`environment_id: environment ${id} is archived`);
  return id;
}

export function vaultIds(v: unknown, kit: Kit): string[] {
  return idArray(v, "vault_ids", (id) => kit.state().vaults.has(id), "vault");
}

/** Validates the outbound events a session accepts; provider_d takes `user.message` only. */
function parseUserEvents(v: unknown, kit: Kit, where: string): JsonObject[] {
  if (!Array.isArray(v) || v.length === 0) throw invalid(`${where}: expected a non-empty array`);
  const accepted =
    kit.dialect.name === "provider_c"
      ? ["user.message", "user.interrupt", "user.tool_confirmation", "user.custom_tool_result"]
      : // provider_d: REF sends user.message only; the sim also takes the confirmation of a tool
        // whose permission is ask (docs/sims.md §Session turns: an assumption, upstream mirrors c).
        ["user.message", "user.tool_confirmation"];
  return v.map((raw, i) => {
    const e = requireObject(raw, `${where}[${i}]`);
    if (typeof e.type !== "string" || !accepted.includes(e.type)) {
      throw invalid(`${where}[${i}].type: must be one of ${accepted.join(", ")}`);
    }
    if (e.type === "user.message") textContent(e.content, `${where}[${i}].content`);
    return e;
  });
}

export function textContent(v: unknown, where: string): string {
  if (!Array.isArray(v) || v.length === 0)
    throw invalid(`${where}: expected a non-empty array of content blocks`);
  return v
    .map((raw, i) => {
      const c = requireObject(raw, `${where}[${i}]`);
      if (c.type !== "text") return "";
      return checkString(c.text, `${where}[${i}].text`);
    })
    .join("");
}

export interface SessionInput {
  agent: JsonObject;
  environment_id: string;
  title: string | null;
  metadata: Record<string, string>;
  vault_ids: string[];
  resources: JsonObject[];
  deployment_id?: string;
  budget?: Json;
}

/** A session resource as provider_c reads it back: with its own id and timestamps. */
function sessionResource(kit: Kit, r: JsonObject): Obj {
  const out = { id: kit.newId("session_resource"), ...r } as Obj;
  if (kit.dialect.name === "provider_c") {
    const now = kit.now();
    out.created_at = now;
    out.updated_at = now;
  }
  return out;
}

export function createSession(kit: Kit, input: SessionInput, initialEvents: JsonObject[] = []): Obj {
  const isC = kit.dialect.name === "provider_c";
  const resources = input.resources.map((r) => sessionResource(kit, r));
  const now = kit.now();
  const s: Obj = {
    id: kit.newId("session"),
    type: "session",
    agent: isC ? agentSnapshot(kit, input.agent) : input.agent,
    environment_id: input.environment_id,
    title: input.title,
    metadata: input.metadata,
    vault_ids: input.vault_ids,
    resources,
    status: "idle",
    created_at: now,
    updated_at: now,
  };
  if (isC) {
    s.deployment_id = input.deployment_id ?? null;
    // Declared required by SDK 1.12's BetaManagedAgentsSession; the simulator spends nothing.
    s.budget = input.budget ?? null;
    s.outcome_evaluations = [];
    s.stats = { active_seconds: 0, duration_seconds: 0 };
    s.usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0 };
  }
  if (kit.dialect.archivable.has("session")) s.archived_at = null;
  const st = kit.state();
  st.sessions.set(s.id, s);
  st.sessionEvents.set(s.id, []);
  createThreads(kit, s);
  if (initialEvents.length) sendEvents(kit, s, initialEvents);
  return s;
}

function emit(kit: Kit, session: Obj, type: string, fields: Record<string, Json>): Obj {
  return appendEvent(kit, kit.state().sessionEvents, session.id, type, fields);
}

/**
 * Appends user events and plays one scripted agent turn per message (running → agent.message →
 * idle), so clients that wait for `session.status_idle` have something to wait for.
 */
export function sendEvents(kit: Kit, session: Obj, events: JsonObject[]): Obj[] {
  const stored: Obj[] = [];
  for (const e of events) {
    const { type, ...rest } = e;
    const resume = type === "user.tool_confirmation" ? confirmTool(kit, session, e) : undefined;
    stored.push(emit(kit, session, type as string, { ...rest, processed_at: kit.now() }));
    resume?.();
    if (type === "user.interrupt") interruptTurn(kit, session);
    if (type !== "user.message") continue;
    const text = textContent(e.content, "content");
    playThreadTurns(kit, session, text);
    playTurn(kit, session, text);
  }
  session.updated_at = kit.now();
  return stored;
}

export function sessionRoutes(router: Router, kit: Kit): void {
  const isC = kit.dialect.name === "provider_c";
  const archivable = kit.dialect.archivable.has("session");
  const session = (id: string) => lookup(kit.state().sessions, id, "session");

  router.post("/sessions", (req, res) => {
    const b = body(req.body);
    const fields = ["agent", "environment_id", "title", "metadata", "vault_ids", "resources"];
    allowOnly(b, isC ? [...fields, "initial_events", "budget"] : fields);
    const input: SessionInput = {
      agent: agentRef(b.agent, kit),
      environment_id: environmentRef(b.environment_id, kit),
      title: optString(b, "title", { max: 512 }) ?? null,
      metadata: createMetadata(b.metadata),
      vault_ids: vaultIds(b.vault_ids, kit),
      resources: parseResources(b.resources, kit),
      ...(isC && b.budget !== undefined && b.budget !== null
        ? { budget: requireObject(b.budget, "budget") }
        : {}),
    };
    const initial =
      b.initial_events === undefined ? [] : parseUserEvents(b.initial_events, kit, "initial_events");
    res.json(createSession(kit, input, initial));
  });

  router.get("/sessions", (req, res) => {
    const q = req.query;
    const agentId = queryString(q, "agent_id");
    const agentVersion = isC ? queryInt(q, "agent_version", 1, Number.MAX_SAFE_INTEGER) : undefined;
    const deploymentId = isC ? queryString(q, "deployment_id") : undefined;
    const storeId = isC ? queryString(q, "memory_store_id") : undefined;
    const statuses = isC ? queryList(q, "statuses") : undefined;
    res.json(
      listPage(kit, req, kit.state().sessions.values(), {
        archivable,
        bidirectional: isC,
        filter: (s) =>
          (agentId === undefined || s.agent.id === agentId) &&
          (agentVersion === undefined || s.agent.version === agentVersion) &&
          (deploymentId === undefined || s.deployment_id === deploymentId) &&
          (storeId === undefined || s.resources.some((r: Obj) => r.memory_store_id === storeId)) &&
          (statuses === undefined || statuses.includes(s.status)),
      }),
    );
  });

  router.get("/sessions/:id", (req, res) => {
    res.json(session(param(req, "id")));
  });
  router.post("/sessions/:id", (req, res) => {
    const s = session(param(req, "id"));
    assertNotArchived(s, "session");
    const b = body(req.body);
    allowOnly(b, ["title", "metadata", "vault_ids"]);
    if (b.title !== undefined) s.title = optString(b, "title", { max: 512 }) ?? null;
    if (b.vault_ids !== undefined) s.vault_ids = vaultIds(b.vault_ids, kit);
    s.metadata = updateMetadata(s.metadata, b.metadata, kit.dialect.metadataUpdate);
    s.updated_at = kit.now();
    res.json(s);
  });
  if (archivable) {
    router.post("/sessions/:id/archive", (req, res) => {
      res.json(archive(kit, session(param(req, "id"))));
    });
  }

  router.delete("/sessions/:id", (req, res) => {
    const st = kit.state();
    const s = session(param(req, "id"));
    st.sessions.delete(s.id);
    st.sessionEvents.delete(s.id);
    deleteThreads(kit, s.id);
    stopTurns(s);
    closeStreams(kit, s.id);
    res.json(deleted(s.id, "session"));
  });

  router.post("/sessions/:id/events", (req, res) => {
    const s = session(param(req, "id"));
    assertNotArchived(s, "session");
    const b = body(req.body);
    allowOnly(b, ["events"]);
    res.json({ data: sendEvents(kit, s, parseUserEvents(b.events, kit, "events")) });
  });

  router.get("/sessions/:id/events", (req, res) => {
    const s = session(param(req, "id"));
    if (req.query.after_id !== undefined) throw invalid("after_id: not supported; use page");
    res.json(eventPage(kit, req, kit.state().sessionEvents.get(s.id) ?? []));
  });

  // Only events after the connection opens; no cursor (clients replay the list to resume).
  router.get("/sessions/:id/events/stream", (req, res) => {
    const id = session(param(req, "id")).id;
    refuseCutStream(kit, id);
    streamEvents(kit, req, res, id);
  });

  threadRoutes(router, kit, session);

  {
    const resource = (s: Obj, rid: string): Obj => {
      const r = (s.resources as Obj[]).find((x) => x.id === rid);
      if (!r) throw notFound("session resource", rid);
      return r;
    };
    router.get("/sessions/:id/resources", (req, res) => {
      const s = session(param(req, "id"));
      res.json({ data: s.resources, next_page: null });
    });
    router.post("/sessions/:id/resources", (req, res) => {
      const s = session(param(req, "id"));
      assertNotArchived(s, "session");
      const [r] = parseResources([req.body], kit, "body");
      const added = sessionResource(kit, r as JsonObject);
      s.resources.push(added);
      res.json(added);
    });
    router.get("/sessions/:id/resources/:rid", (req, res) => {
      res.json(resource(session(param(req, "id")), param(req, "rid")));
    });
    router.post("/sessions/:id/resources/:rid", (req, res) => {
      const s = session(param(req, "id"));
      const r = resource(s, param(req, "rid"));
      const { created_at, updated_at: _updated, ...current } = r;
      const merged = stripId({ ...current, ...body(req.body) });
      if (merged.type === "memory_store") delete merged.mount_path;
      const [next] = parseResources([merged], kit, "body");
      Object.assign(r, next);
      if (created_at !== undefined) r.updated_at = kit.now();
      res.json(r);
    });
    router.delete("/sessions/:id/resources/:rid", (req, res) => {
      const s = session(param(req, "id"));
      const r = resource(s, param(req, "rid"));
      s.resources = (s.resources as Obj[]).filter((x) => x !== r);
      res.json(deleted(r.id, "session_resource"));
    });
  }
}

function stripId(o: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, ...rest } = o;
  return rest;
}
