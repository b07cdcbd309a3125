import type { Router } from "express";
import { DEPLOYMENT_FIELDS } from "../kit/deployments.js";
import { archive, assertNotArchived, listPage, lookup, param } from "../managed/common.js";
import { invalid } from "../managed/errors.js";
import { queryString } from "../managed/http.js";
import { parseResources } from "../managed/resources.js";
import { createSession, environmentRef, sendEvents, textContent, vaultIds } from "../managed/sessions.js";
import type { Kit, Obj } from "../managed/state.js";
import {
  allowOnly,
  body,
  checkString,
  createMetadata,
  type JsonObject,
  optString,
  reqString,
  requireObject,
  updateMetadata,
} from "../managed/validate.js";
import { catchUpSchedules, parseSchedule } from "./schedule.js";

const FIELDS = [...DEPLOYMENT_FIELDS, "budget"];

/** `agent` on a deployment: a bare id floats to the latest version at run time; an object may pin one. */
function deploymentAgent(v: unknown, kit: Kit): JsonObject {
  let id: string;
  let version: number | null = null;
  if (typeof v === "string") id = v;
  else {
    const r = requireObject(v, "agent");
    allowOnly(r, ["type", "id", "version"], "agent");
    if (r.type !== undefined && r.type !== "agent") throw invalid(`agent.type: must be "agent"`);
    id = checkString(r.id, "agent.id", { min: 1 });
    if (r.version !== undefined && r.version !== null) {
      if (!Number.isInteger(r.version)) throw invalid("agent.version: expected an integer");
      version = r.version as number;
    }
  }
  const agent = kit.state().agents.get(id);
  if (!agent) throw invalid(`agent: agent ${JSON.stringify(id)} not found`);
  if (agent.archived_at) throw invalid(`agent: agent ${id} is archived`);
  if (version !== null && (version < 1 || version > agent.version))
    throw invalid(`agent.version: agent ${id} has no version ${version}`);
  return { type: "agent", id, version };
}

function initialEvents(v: unknown, kit: Kit): JsonObject[] {
  if (!Array.isArray(v) || v.length === 0)
    throw invalid("initial_events: Field required (a non-empty array)");
  return v.map((raw, i) => {
    const w = `initial_events[${i}]`;
    const e = requireObject(raw, w);
    if (e.type === "user.message" || e.type === "system.message") {
      allowOnly(e, ["type", "content"], w);
      textContent(e.content, `${w}.content`);
      return e;
    }
    if (e.type === "user.define_outcome") {
      allowOnly(e, ["type", "description", "rubric", "max_iterations"], w);
      checkString(e.description, `${w}.description`, { min: 1 });
      const r = requireObject(e.rubric, `${w}.rubric`);
      if (r.type === "text") checkString(r.content, `${w}.rubric.content`, { min: 1 });
      else if (r.type === "file") {
        const id = checkString(r.file_id, `${w}.rubric.file_id`, { min: 1 });
        if (!kit.state().files.has(id))
          throw invalid(`${w}.rubric.file_id: file ${JSON.stringify(id)} not found`);
      } else throw invalid(`${w}.rubric.type: must be "text" or "file"`);
      if (
        e.max_iterations !== undefined &&
        (!Number.isInteger(e.max_iterations) || (e.max_iterations as number) < 1)
      ) {
        throw invalid(`${w}.max_iterations: expected a positive integer`);
      }
      return e;
    }
    throw invalid(`${w}.type: must be user.message, system.message or user.define_outcome`);
  });
}

/**
 * Starts one run: a session from the deployment's agent, environment, vaults and resources, fed the
 * initial events. A run that cannot start records an `error` instead of a `session_id`.
 */
export function startRun(kit: Kit, d: Obj, trigger: JsonObject): Obj {
  const s = kit.state();
  const agent = s.agents.get(d.agent.id);
  const run: Obj = {
    id: kit.newId("deployment_run"),
    type: "deployment_run",
    deployment_id: d.id,
    agent: { type: "agent", id: d.agent.id, version: d.agent.version ?? agent?.version ?? null },
    session_id: null,
    error: null,
    trigger_context: trigger,
    created_at: kit.now(),
  };
  const env = s.environments.get(d.environment_id);
  const vaults = (d.vault_ids as string[]).map((id) => [id, s.vaults.get(id)] as const);
  const missingVault = vaults.find(([, v]) => !v)?.[0];
  const archivedVault = vaults.find(([, v]) => v?.archived_at)?.[0];
  // Error `type`s are SDK 1.12's run error objects (`deployment-runs.d.ts`).
  if (!agent || agent.archived_at)
    run.error = { type: "agent_archived_error", message: `agent ${d.agent.id} is archived` };
  else if (!env)
    run.error = {
      type: "environment_not_found_error",
      message: `environment ${d.environment_id} was not found`,
    };
  else if (env.archived_at)
    run.error = {
      type: "environment_archived_error",
      message: `environment ${d.environment_id} is archived`,
    };
  else if (missingVault)
    run.error = { type: "vault_not_found_error", message: `vault ${missingVault} was not found` };
  else if (archivedVault)
    run.error = { type: "vault_archived_error", message: `vault ${archivedVault} is archived` };
  else {
    const session = createSession(kit, {
      agent: run.agent,
      environment_id: d.environment_id,
      title: d.description || d.name,
      metadata: {},
      vault_ids: d.vault_ids,
      resources: d.resources,
      deployment_id: d.id,
    });
    sendEvents(
      kit,
      session,
      (d.initial_events as JsonObject[]).filter((e) => e.type !== "user.define_outcome"),
    );
    run.session_id = session.id;
  }
  s.deploymentRuns.set(run.id, run);
  return run;
}

export function deploymentRoutes(router: Router, kit: Kit): void {
  const deployment = (id: string) => lookup(kit.state().deployments, id, "deployment");
  // Scheduled runs are produced lazily, whenever a client looks at deployments, runs or sessions.
  router.use(["/deployments", "/deployment_runs", "/sessions"], (_req, _res, next) => {
    catchUpSchedules(kit, startRun);
    next();
  });

  router.post("/deployments", (req, res) => {
    const b = body(req.body);
    allowOnly(b, FIELDS);
    const now = kit.now();
    const d: Obj = {
      id: kit.newId("deployment"),
      type: "deployment",
      name: reqString(b, "name", { min: 1, max: 256 }),
      description: optString(b, "description", { max: 2048 }) ?? "",
      agent: deploymentAgent(b.agent, kit),
      environment_id: environmentRef(b.environment_id, kit),
      initial_events: initialEvents(b.initial_events, kit),
      vault_ids: vaultIds(b.vault_ids, kit),
      resources: parseResources(b.resources, kit),
      schedule: parseSchedule(b.schedule),
      status: "active",
      paused_reason: null,
      metadata: createMetadata(b.metadata),
      budget: b.budget === undefined ? null : requireObject(b.budget, "budget"),
      created_at: now,
      updated_at: now,
      archived_at: null,
    };
    kit.state().deployments.set(d.id, d);
    kit.state().scheduleMarks.set(d.id, kit.clock.now());
    res.json(d);
  });

  router.get("/deployments", (req, res) => {
    const agentId = queryString(req.query, "agent_id");
    const status = queryString(req.query, "status");
    if (status !== undefined && status !== "active" && status !== "paused")
      throw invalid(`status: must be "active" or "paused"`);
    res.json(
      listPage(kit, req, kit.state().deployments.values(), {
        archivable: true,
        filter: (d) =>
          (agentId === undefined || d.agent.id === agentId) && (status === undefined || d.status === status),
      }),
    );
  });

  router.get("/deployments/:id", (req, res) => {
    res.json(deployment(param(req, "id")));
  });

  router.post("/deployments/:id", (req, res) => {
    const d = deployment(param(req, "id"));
    assertNotArchived(d, "deployment");
    const b = body(req.body);
    allowOnly(b, FIELDS);
    const next = { ...d };
    if (b.name !== undefined) next.name = reqString(b, "name", { min: 1, max: 256 });
    if (b.description !== undefined) next.description = optString(b, "description", { max: 2048 }) ?? "";
    if (b.agent !== undefined) next.agent = deploymentAgent(b.agent, kit);
    if (b.environment_id !== undefined) next.environment_id = environmentRef(b.environment_id, kit);
    if (b.initial_events !== undefined) next.initial_events = initialEvents(b.initial_events, kit);
    if (b.vault_ids !== undefined) next.vault_ids = vaultIds(b.vault_ids, kit);
    if (b.resources !== undefined) next.resources = parseResources(b.resources, kit);
    if (b.schedule !== undefined) {
      next.schedule = parseSchedule(b.schedule);
      kit.state().scheduleMarks.set(d.id, kit.clock.now());
    }
    if (b.budget !== undefined) next.budget = b.budget === null ? null : requireObject(b.budget, "budget");
    next.metadata = updateMetadata(d.metadata, b.metadata, kit.dialect.metadataUpdate);
    next.updated_at = kit.now();
    kit.state().deployments.set(d.id, next);
    res.json(next);
  });

  router.post("/deployments/:id/archive", (req, res) => {
    res.json(archive(kit, deployment(param(req, "id"))));
  });

  router.post("/deployments/:id/pause", (req, res) => {
    const d = deployment(param(req, "id"));
    assertNotArchived(d, "deployment");
    d.status = "paused";
    d.paused_reason = { type: "manual" };
    d.updated_at = kit.now();
    res.json(d);
  });

  router.post("/deployments/:id/unpause", (req, res) => {
    const d = deployment(param(req, "id"));
    assertNotArchived(d, "deployment");
    d.status = "active";
    d.paused_reason = null;
    // Missed schedule slots while paused are skipped, not replayed.
    kit.state().scheduleMarks.set(d.id, kit.clock.now());
    d.updated_at = kit.now();
    res.json(d);
  });

  router.post("/deployments/:id/run", (req, res) => {
    const d = deployment(param(req, "id"));
    assertNotArchived(d, "deployment");
    res.json(startRun(kit, d, { type: "manual" }));
  });

  router.get("/deployment_runs", (req, res) => {
    const deploymentId = queryString(req.query, "deployment_id");
    res.json(
      listPage(kit, req, kit.state().deploymentRuns.values(), {
        filter: (r) => deploymentId === undefined || r.deployment_id === deploymentId,
      }),
    );
  });

  router.get("/deployment_runs/:id", (req, res) => {
    res.json(lookup(kit.state().deploymentRuns, param(req, "id"), "deployment_run"));
  });
}
