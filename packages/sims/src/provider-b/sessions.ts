import type { Request, Response, Router } from "express";
import { body, str } from "../kit/body.js";
import { h, WireError } from "../kit/errors.js";
import {
  awaitedTool,
  confirmHubTool,
  interruptHubTurn,
  playHubTurn,
  stopHubTurns,
  streamCutFor,
} from "../kit/hub-turns.js";
import { checkMetadata, isObject } from "../kit/records.js";
import { getView } from "../kit/routes.js";
import { put, type Rec } from "../kit/store.js";
import {
  bad,
  type Ctx,
  conflict,
  find,
  idempotent,
  includeArchived,
  listAfterId,
  listByPage,
  liveIn,
  stamp,
  updatedView,
  view,
} from "./common.js";
import { createStore } from "./memory.js";
import { envVarMap, envVarString, sessionResources } from "./resources.js";
import type { Domain } from "./state.js";

const SENDABLE = ["user.message", "user.tool_confirmation"];

export function vaultIds(ctx: Ctx, value: unknown, domain: Domain): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw bad("vault_ids must be an array");
  for (const id of value) {
    const v = typeof id === "string" ? ctx.state.objects.vaults.get(id) : undefined;
    if (!v || v._domain !== domain) throw bad(`vault ${String(id)} not found`);
  }
  return value as string[];
}

export function tunnelId(ctx: Ctx, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || !ctx.state.objects.tunnels.has(value))
    throw bad(`tunnel ${String(value)} not found`);
  return value;
}

/** A managed session, as the API creates it for POST /sessions and for deployment runs. */
export function createManagedSession(ctx: Ctx, b: Record<string, unknown>): Rec {
  const agentRef = b.agent;
  const agentId = typeof agentRef === "string" ? agentRef : isObject(agentRef) ? agentRef.id : undefined;
  if (typeof agentId !== "string") throw bad("agent is required (an agent id)");
  const agent = ctx.state.objects.agents.get(agentId);
  if (!agent || agent.archived_at) throw bad(`agent ${agentId} not found`);
  const envId = str(b, "environment_id", true)!;
  const env = ctx.state.objects.environments.get(envId);
  if (!liveIn(env, "managed")) throw bad(`environment ${envId} not found`);
  const rec = put(ctx.state, "sessions", {
    id: ctx.ids.next("sess_"),
    type: "session",
    agent: { id: agent.id, type: "agent", version: agent.version, name: agent.name },
    environment_id: env.id,
    tunnel_id: tunnelId(ctx, b.tunnel_id),
    title: str(b, "title") ?? null,
    metadata: checkMetadata(b.metadata),
    vault_ids: vaultIds(ctx, b.vault_ids, "managed"),
    resources: sessionResources(ctx, b.resources, "managed"),
    status: "idle",
    ...stamp(ctx),
    archived_at: null,
    _domain: "managed",
    _environment_variable_names: envVarString(b.environment_variables),
  });
  ctx.state.events.set(rec.id, []);
  return rec;
}

function createForwardSession(ctx: Ctx, b: Record<string, unknown>): Rec {
  const identityId = str(b, "identity_id", true)!;
  const identity = ctx.state.objects.identities.get(identityId);
  if (!identity) throw bad(`identity ${identityId} not found`);
  if (identity.enabled === false) throw conflict(`identity ${identityId} is disabled`, "IDENTITY_DISABLED");
  const templateId = str(b, "template_id", true)!;
  const tmpl = ctx.state.objects.templates.get(templateId);
  if (!tmpl || tmpl.status === "archived") throw bad(`template ${templateId} not found or archived`);
  const config = b.config === undefined || b.config === null ? undefined : b.config;
  if (config !== undefined && !isObject(config)) throw bad("config must be an object");
  const envVars = envVarMap(config?.environment_variables, "config.environment_variables");
  const rec = put(ctx.state, "sessions", {
    id: ctx.ids.next("sess_"),
    type: "session",
    identity_id: identity.id,
    template_id: tmpl.id,
    template: { id: tmpl.id, environment_id: tmpl.environment_id, tunnel_id: tmpl.tunnel_id ?? null },
    title: str(b, "title") ?? null,
    metadata: checkMetadata(b.metadata),
    incremental_streaming_enabled: b.incremental_streaming_enabled === true,
    resources: sessionResources(ctx, b.resources, "forward"),
    status: "idle",
    ...stamp(ctx),
    archived_at: null,
    _domain: "forward",
    _environment_variable_names: Object.keys(envVars ?? {}),
  });
  ctx.state.events.set(rec.id, []);
  ensureDefaultStore(ctx, identity, tmpl);
  return rec;
}

/**
 * The platform's default memory store: one writable, system-managed store per (identity, template),
 * created with the first Forward session of the pair (and again only if its system mount is gone).
 */
function ensureDefaultStore(ctx: Ctx, identity: Rec, tmpl: Rec): void {
  const exists = ctx.state.mounts.some(
    (m) => m.identity_id === identity.id && m.template_id === tmpl.id && m.system_managed,
  );
  if (exists) return;
  const store = createStore(ctx, "forward", {
    name: `default-${identity.external_id as string}-${tmpl.name as string}`.slice(0, 255),
    description: `Default memory store of identity ${identity.id} for template ${tmpl.id}`,
    system_managed: true,
  });
  ctx.state.mounts.push({
    identity_id: identity.id,
    template_id: tmpl.id,
    memory_store_id: store.id,
    system_managed: true,
    access: "read_write",
    created_at: ctx.clock.iso(),
  });
}

/** Appends an event, fans it out to open streams, and returns it. */
export function appendEvent(ctx: Ctx, session: Rec, fields: Record<string, unknown>): Rec {
  const event: Rec = {
    id: ctx.ids.next("sevt_"),
    session_id: session.id,
    ...fields,
    created_at: ctx.clock.iso(),
  };
  ctx.state.seq.assign(event.id);
  ctx.state.events.get(session.id)?.push(event);
  ctx.state.hub.publish(session.id, event);
  return event;
}

/** The scripted agent's turn for one user message (docs/sims.md §Session turns). */
export function agentTurn(ctx: Ctx, session: Rec, text: string): void {
  const tools =
    session._domain === "forward"
      ? ctx.state.objects.templates.get(session.template_id as string)?.tools
      : ctx.state.objects.agents.get((session.agent as Rec).id as string)?.tools;
  playHubTurn({
    vocabulary: "provider_b",
    state: ctx.state,
    sim: ctx,
    rec: session,
    session: {
      id: session.id,
      hub: ctx.state.hub,
      append: (fields) => appendEvent(ctx, session, fields),
      setStatus: (value) => {
        session.status = value;
        session.updated_at = ctx.clock.iso();
      },
    },
    text,
    tools,
  });
}

/**
 * `user.message` starts a turn; `user.tool_confirmation` ({tool_use_id, result: allow|deny})
 * answers a tool call the agent's `ask` permission holds (the wire of provider_c, which
 * provider_b's event vocabulary follows; docs/sims.md §Session turns).
 */
export function sendEvents(ctx: Ctx, session: Rec, events: unknown): Rec[] {
  if (session.archived_at) throw conflict(`session ${session.id} is archived`, "SESSION_ARCHIVED");
  if (session.status === "terminated")
    throw conflict(`session ${session.id} is terminated`, "SESSION_TERMINATED");
  if (!Array.isArray(events) || events.length === 0) throw bad("events must be a non-empty array");
  const parsed = events.map((e, i) => {
    if (!isObject(e) || !SENDABLE.includes(String(e.type)))
      throw bad(`events[${i}].type must be one of ${SENDABLE.join(", ")}`);
    if (e.type === "user.tool_confirmation") {
      if (typeof e.tool_use_id !== "string") throw bad(`events[${i}].tool_use_id is required`);
      if (e.result !== "allow" && e.result !== "deny") throw bad(`events[${i}].result must be allow or deny`);
      if (awaitedTool(session) !== e.tool_use_id)
        throw bad(`tool_use_id: the session is not waiting for a confirmation of ${e.tool_use_id}`);
      return { confirm: { id: e.tool_use_id, result: e.result as "allow" | "deny" } };
    }
    const content = e.content;
    if (!Array.isArray(content) || content.length === 0)
      throw bad(`events[${i}].content must be a non-empty array`);
    const text = content
      .map((c, j) => {
        if (!isObject(c) || c.type !== "text" || typeof c.text !== "string") {
          throw bad(`events[${i}].content[${j}] must be {type:"text", text}`);
        }
        return c.text;
      })
      .join("\n");
    return { text };
  });
  return parsed.map((p) => {
    if ("confirm" in p && p.confirm) {
      const { id, result } = p.confirm;
      const created = appendEvent(ctx, session, { type: "user.tool_confirmation", tool_use_id: id, result });
      confirmHubTool(session, id, result);
      return created;
    }
    const text = (p as { text: string }).text;
    const created = appendEvent(ctx, session, { type: "user.message", content: [{ type: "text", text }] });
    agentTurn(ctx, session, text);
    return created;
  });
}

export function sessionRoutes(r: Router, ctx: Ctx, domain: Domain): void {
  const session = (req: Request) => find(ctx, "sessions", req.params.id as string, "session", domain);
  const sessions = () => [...ctx.state.objects.sessions.values()].filter((s) => s._domain === domain);

  r.post(
    "/sessions",
    h((req, res) => {
      const b = body(req);
      if (domain === "managed") {
        res.json(view(createManagedSession(ctx, b)));
        return;
      }
      idempotent(ctx, req, res, () => view(createForwardSession(ctx, b)));
    }),
  );
  r.get(
    "/sessions",
    h((req, res) => {
      const all = includeArchived(req);
      const filters: Array<[string, (s: Rec) => unknown]> =
        domain === "managed"
          ? [["agent_id", (s) => (s.agent as Rec).id]]
          : [
              ["template_id", (s) => s.template_id],
              ["identity_id", (s) => s.identity_id],
            ];
      const items = sessions().filter(
        (s) =>
          (all || !s.archived_at) &&
          filters.every(([q, get]) => req.query[q] === undefined || req.query[q] === get(s)),
      );
      res.json(domain === "managed" ? listByPage(ctx, req, items) : listAfterId(ctx, req, items));
    }),
  );
  getView(r, "/sessions/:id", (req) => session(req));
  r.post(
    "/sessions/:id",
    h((req, res) => {
      const s = session(req);
      if (s.archived_at) throw conflict(`session ${s.id} is archived`, "SESSION_ARCHIVED");
      const b = body(req);
      if (b.title !== undefined) s.title = str(b, "title") ?? null;
      res.json(updatedView(ctx, s, b.metadata));
    }),
  );
  r.delete(
    "/sessions/:id",
    h((req, res) => {
      const s = session(req);
      if (domain === "forward") throw new WireError(405, "", "Forward sessions are archived, not deleted");
      ctx.state.objects.sessions.delete(s.id);
      ctx.state.events.delete(s.id);
      stopHubTurns(s);
      ctx.state.hub.close(s.id);
      res.json({ id: s.id, type: "session_deleted" });
    }),
  );
  r.post(
    "/sessions/:id/archive",
    h((req, res) => {
      const s = session(req);
      if (!s.archived_at) s.archived_at = ctx.clock.iso();
      stopHubTurns(s);
      ctx.state.hub.close(s.id);
      res.json(view(s));
    }),
  );
  if (domain === "managed") {
    r.post(
      "/sessions/:id/cancel",
      h((req, res) => {
        const s = session(req);
        // The turn in progress stops; the session goes idle once it has.
        const canceling = interruptHubTurn(s);
        res.json({ ...view(s), status: canceling ? "canceling" : s.status });
      }),
    );
  }
  r.post(
    "/sessions/:id/events",
    h((req, res) => {
      const created = sendEvents(ctx, session(req), body(req).events);
      res.json({ data: created.map(view) });
    }),
  );
  r.get(
    "/sessions/:id/events",
    h((req, res) => {
      const s = session(req);
      const events = ctx.state.events.get(s.id) ?? [];
      if (domain === "forward" || req.query.after_id !== undefined) {
        res.json(listAfterId(ctx, req, events));
        return;
      }
      res.json(listByPage(ctx, req, events));
    }),
  );
  r.get(
    "/sessions/:id/events/stream",
    h((req, res: Response) => {
      const s = session(req);
      if (streamCutFor(ctx.state, s.id))
        throw new WireError(
          503,
          "SERVICE_UNAVAILABLE",
          `the event stream of ${s.id} is unavailable (simulated)`,
        );
      const events = ctx.state.events.get(s.id) ?? [];
      const last = req.headers["last-event-id"];
      const lastSeq = typeof last === "string" ? ctx.state.seq.of(last) : undefined;
      const backlog =
        lastSeq === undefined ? events : events.filter((e) => (ctx.state.seq.of(e.id) ?? 0) > lastSeq);
      ctx.state.hub.open(req, res, s.id, backlog);
      if (s.archived_at) ctx.state.hub.close(s.id);
    }),
  );
}
