import type { Request, Router } from "express";
import { body, str } from "../kit/body.js";
import {
  cronSchedule,
  deploymentRun,
  fireDueSlots,
  pauseRoutes,
  runRoute,
  seedRunSession,
} from "../kit/deployments.js";
import { h } from "../kit/errors.js";
import { checkMetadata, isObject } from "../kit/records.js";
import { getView } from "../kit/routes.js";
import { put, type Rec } from "../kit/store.js";
import {
  assertFreeName,
  bad,
  type Ctx,
  find,
  listPage,
  now,
  stamp,
  timestamp,
  view,
  writable,
} from "./common.js";
import { agentTurn, appendEvent, createSession, fileResources, messages, vaultIds } from "./sessions.js";

function agentRef(ctx: Ctx, value: unknown): Record<string, unknown> {
  if (!isObject(value) || typeof value.id !== "string") throw bad("agent must be {id, version?}");
  const agent = ctx.state.objects.agents.get(value.id);
  if (!agent || agent.archived_at) throw bad(`agent ${value.id} not found`);
  const v = value.version;
  if (v !== undefined && (typeof v !== "number" || v < 1 || v > (agent.version as number))) {
    throw bad(`agent version ${String(v)} does not exist`);
  }
  return v === undefined ? { id: agent.id } : { id: agent.id, version: v };
}

function schedule(value: unknown): unknown {
  return value === null ? null : cronSchedule(value, "Asia/Shanghai");
}

function fields(ctx: Ctx, b: Record<string, unknown>, creating: boolean): Record<string, unknown> {
  const has = (k: string) => creating || b[k] !== undefined;
  const out: Record<string, unknown> = {};
  if (has("name")) out.name = str(b, "name", true);
  if (has("agent")) out.agent = agentRef(ctx, b.agent);
  if (has("environment_id")) {
    const id = str(b, "environment_id", true)!;
    if (!ctx.state.objects.environments.has(id)) throw bad(`environment ${id} not found`);
    out.environment_id = id;
  }
  if (has("initial_events")) {
    messages(b.initial_events, "initial_events");
    out.initial_events = b.initial_events;
  }
  if (has("description")) out.description = str(b, "description") ?? "";
  if (has("vault_ids")) out.vault_ids = vaultIds(ctx, b.vault_ids);
  if (has("resources")) out.resources = fileResources(ctx, b.resources);
  if (has("schedule")) out.schedule = b.schedule === undefined ? null : schedule(b.schedule);
  if (has("metadata")) out.metadata = checkMetadata(b.metadata);
  return out;
}

export function deploymentRoutes(r: Router, ctx: Ctx): void {
  const get = (req: Request) => find(ctx, "deployments", req.params.id as string, "deployment");
  r.post(
    "/deployments",
    h((req, res) => {
      const f = fields(ctx, body(req), true);
      assertFreeName(ctx.state.objects.deployments.values(), "name", f.name);
      const rec = put(ctx.state, "deployments", {
        id: ctx.ids.next("depl_"),
        type: "deployment",
        ...f,
        status: "active",
        paused_reason: null,
        ...stamp(ctx),
        archived_at: null,
      });
      res.json(view(rec));
    }),
  );
  r.get(
    "/deployments",
    h((req, res) => {
      const q = req.query;
      const range = isObject(q.created_at) ? q.created_at : {};
      const createdMs = (d: Rec) => Date.parse(d.created_at as string);
      const items = [...ctx.state.objects.deployments.values()].filter(
        (d) =>
          (q.agent_id === undefined || (d.agent as Rec).id === q.agent_id) &&
          (q.status === undefined || d.status === q.status) &&
          (q.include_archived === "true" || !d.archived_at) &&
          (typeof range.gte !== "string" || createdMs(d) >= Date.parse(range.gte)) &&
          (typeof range.lte !== "string" || createdMs(d) <= Date.parse(range.lte)),
      );
      res.json(listPage(ctx, req, items));
    }),
  );
  getView(r, "/deployments/:id", (req) => get(req));
  r.post(
    "/deployments/:id",
    h((req, res) => {
      const rec = get(req);
      writable(rec, "deployment");
      const f = fields(ctx, body(req), false);
      if (f.name !== undefined)
        assertFreeName(ctx.state.objects.deployments.values(), "name", f.name, rec.id);
      Object.assign(rec, f, { updated_at: now(ctx) });
      res.json(view(rec));
    }),
  );
  r.post(
    "/deployments/:id/archive",
    h((req, res) => {
      const rec = get(req);
      if (!rec.archived_at) rec.archived_at = now(ctx);
      res.json(view(rec));
    }),
  );
  pauseRoutes(
    r,
    get,
    (rec) => writable(rec, "deployment"),
    () => now(ctx),
  );
  runRoute(
    r,
    get,
    (rec) => writable(rec, "deployment"),
    (rec) => bad(`deployment ${rec.id} is paused`, "deployment_paused"),
    (rec) => runDeployment(ctx, rec, { type: "manual" }),
  );
}

/** One run: a session seeded with the initial events; a broken reference becomes the run's error. */
function runDeployment(ctx: Ctx, rec: Rec, trigger: Record<string, unknown>): Rec {
  const run = deploymentRun(
    rec,
    trigger,
    { id: ctx.ids.next("drun_"), status: "running", ...stamp(ctx) },
    () => {
      const session = createSession(ctx, {
        agent: (rec.agent as Rec).id,
        environment_id: rec.environment_id,
        vault_ids: rec.vault_ids,
        resources: rec.resources,
        metadata: { deployment_id: rec.id },
      });
      seedRunSession(
        rec.initial_events as Rec[],
        (e) => appendEvent(ctx, session, e),
        (text) => agentTurn(ctx, session, text),
      );
      return session.id;
    },
  );
  return put(ctx.state, "deployment_runs", run);
}

/** Due cron slots become runs (kit/deployments.ts fireDueSlots says when). */
export function fireSchedules(ctx: Ctx): void {
  fireDueSlots(ctx.state.objects.deployments.values(), ctx.clock.now(), (d, slot) => {
    runDeployment(ctx, d, { type: "schedule", scheduled_at: timestamp(slot) });
  });
}
