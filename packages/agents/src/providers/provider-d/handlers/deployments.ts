// provider_d has no deployment resource. A deployment is local-only: apply records the session
// body a run sends (remote ids resolved now), destroy forgets it, and `runEmulatedDeployment`
// performs a run: upload local file sources, create a session, send the initial messages.

import { DeclarationError } from "../../common/errors.js";
import { str } from "../../common/handler-kit.js";
import type { HttpClient } from "../../http.js";
import { canonicalDeployment, DEPLOYMENT_COMPARED, textContent } from "../../managed-dialect/deployment.js";
import { idOf, overlay, uploadLocalFile } from "../../managed-dialect/remote.js";
import { mountPath } from "../../managed-dialect/resources.js";
import { compact, isRecord, type Json, records, strList } from "../../managed-dialect/spec.js";
import type { DeploymentHandler, HandlerContext, RemoteObject, Spec } from "../../types.js";
import { UnforeseeableError } from "../../unforeseeable.js";
import { DEFAULT_FILE_PURPOSE, emulatedDeploymentId, MOUNT_ROOT } from "../wire-decisions.js";

export interface EmulatedRunPlan {
  session: Json;
  /** File resources to upload at run time (local `source` → mount path). */
  uploads: Array<{ source: string; mount_path?: string }>;
  /** `user.message` events (system messages converted; outcomes dropped). */
  events: Json[];
}

function emulatedRunPlan(ctx: HandlerContext, spec: Json): EmulatedRunPlan {
  const agentName = str(spec.agent);
  if (!agentName)
    throw new DeclarationError("provider_d.deployment_without_agent", "a deployment needs agent");
  const session = ctx.resolveExtra("agents", agentName)?.session;
  const defaults = isRecord(session) ? session : {};
  const environment = str(spec.environment);
  const resources: Json[] = [];
  const uploads: EmulatedRunPlan["uploads"] = [];
  for (const name of strList(spec.memory_stores))
    resources.push({ type: "memory_store", memory_store_id: ctx.resolve("memory_stores", name) });
  for (const r of records(spec.resources)) {
    if (r.type === "memory_store") {
      if (r.access !== undefined || r.instructions !== undefined)
        ctx.warn(
          `memory_store ${String(r.memory_store)}: access/instructions are not supported by provider_d; dropped`,
        );
      resources.push({
        type: "memory_store",
        memory_store_id: ctx.resolve("memory_stores", str(r.memory_store) ?? ""),
      });
    } else if (r.type === "file") {
      const mount = mountPath(MOUNT_ROOT, str(r.mount_path));
      const source = str(r.source);
      if (str(r.file_id))
        resources.push(compact({ type: "file", file_id: str(r.file_id), mount_path: mount }));
      else if (source)
        uploads.push(compact({ source, mount_path: mount }) as EmulatedRunPlan["uploads"][number]);
      else
        throw new DeclarationError(
          "provider_d.file_resource_without_source",
          "a file resource needs file_id or source",
        );
    } else if (r.type === "git_repository") {
      ctx.warn(`git_repository ${String(r.url)}: provider_d sessions take no repositories; dropped`);
    }
  }
  const events: Json[] = [];
  for (const e of records(spec.initial_events)) {
    if (e.type === "user.message" || e.type === "system.message")
      events.push({ type: "user.message", content: textContent(e.content) });
    else ctx.warn(`initial event ${String(e.type)} is not supported by provider_d sessions; dropped`);
  }
  if (spec.schedule !== undefined)
    ctx.warn(
      "provider_d has no deployments: the schedule is recorded but not enforced (use an external cron)",
    );
  if (spec.agent_version !== undefined)
    ctx.warn("provider_d sessions run the agent's current version; agent_version is not sent");
  const vaults = strList(spec.vaults);
  return {
    session: compact({
      agent: ctx.resolve("agents", agentName),
      environment_id: environment ? ctx.resolve("environments", environment) : str(defaults.environment_id),
      title: str(spec.description),
      vault_ids:
        vaults.length > 0 ? vaults.map((v) => ctx.resolve("vaults", v)) : strList(defaults.vault_ids),
      resources,
    }),
    uploads,
    events,
  };
}

function record(ctx: HandlerContext, spec: Spec): RemoteObject {
  const plan = emulatedRunPlan(ctx, spec);
  return {
    id: emulatedDeploymentId(ctx.owner.resource),
    spec: canonicalDeployment(spec, MOUNT_ROOT),
    extra: { emulated: true, status: "emulated (local)", run: plan as unknown as Json },
  };
}

export const providerDDeploymentHandler: DeploymentHandler = {
  localOnly: true,
  // A declared repository token is dropped at run time, but it is still part of the spec kept in state.
  sensitive: ["resources.*.authorization_token"],
  desired: (spec) => overlay(spec, canonicalDeployment(spec, MOUNT_ROOT), DEPLOYMENT_COMPARED),
  create: async (ctx, spec) => record(ctx, spec),
  update: async (ctx, _id, spec) => record(ctx, spec),
  read: async (_ctx, id, prior) => ({
    id,
    spec: prior ? prior.spec : {},
    ...(prior?.extra ? { extra: prior.extra } : {}),
  }),
  remove: async () => {},
  run: async (ctx, _id, prior) => {
    const plan = prior.extra?.run as unknown as EmulatedRunPlan | undefined;
    if (!plan)
      throw new UnforeseeableError("state", "this deployment has no recorded run plan; apply it first");
    return runEmulatedDeployment(ctx.http, ctx.configDir, plan, ctx.signal);
  },
};

/** One run of an emulated deployment; returns the session id (provider_d has no run id). */
async function runEmulatedDeployment(
  http: HttpClient,
  configDir: string,
  plan: EmulatedRunPlan,
  signal?: AbortSignal,
): Promise<{ session_id: string }> {
  const resources = [...records(plan.session.resources)];
  for (const upload of plan.uploads) {
    const uploaded = await uploadLocalFile(http, configDir, upload.source, {
      fields: { purpose: DEFAULT_FILE_PURPOSE },
      ...(signal ? { signal } : {}),
    });
    resources.push(
      compact({ type: "file", file_id: idOf(uploaded, "file_id"), mount_path: upload.mount_path }),
    );
  }
  const session = await http.request<Json>({
    method: "POST",
    path: "/sessions",
    json: compact({ ...plan.session, resources }),
    ...(signal ? { signal } : {}),
  });
  const sessionId = idOf(session.body);
  if (plan.events.length > 0)
    await http.request({
      method: "POST",
      path: `/sessions/${sessionId}/events`,
      json: { events: plan.events },
      ...(signal ? { signal } : {}),
    });
  return { session_id: sessionId };
}
