// provider_c deployments are native: create/update by POST, removal by archive (there is no
// delete). File resources with a local `source` are uploaded for the deployment and deleted
// with it; the uploaded ids live in `extra.uploads` (source → file id) and the digest of each
// source's content is part of the compared spec (`source_digests`): an edited file plans an
// update, which uploads the new content, points the deployment at it and deletes the upload it
// no longer mounts. Files carry no metadata,
// so each upload is journaled before its request (docs/state.md#uploads): a run that dies between
// the upload and the deployment call lets the next one reuse that upload, adopt it with the
// deployment, or delete it; a create the provider refuses deletes the uploads it made.

import { basename } from "node:path";
import { logicalNameOf } from "../../../model/address.js";
import { DeclarationError } from "../../common/errors.js";
import { str } from "../../common/handler-kit.js";
import {
  filesOfUpload,
  journalUpload,
  listFiles,
  reusableUpload,
  settleUploads,
} from "../../common/journaled-uploads.js";
import { readLocalFile } from "../../common/local-files.js";
import { metadataPatch, ownerOf, userMetadata, withOwnership } from "../../common/ownership.js";
import { listReader } from "../../common/paging.js";
import { sourceDigests } from "../../common/uploads.js";
import { ProviderHttpError } from "../../http.js";
import {
  canonicalDeployment,
  DEPLOYMENT_COMPARED,
  type DeploymentRefs,
  deploymentResources,
  deploymentResourcesFromWire,
  initialEventsFromWire,
  initialEventsToWire,
  scheduleFromWire,
  scheduleToWire,
} from "../../managed-dialect/deployment.js";
import { METADATA_LIMITS } from "../../managed-dialect/ownership.js";
import {
  findOwnedIn,
  getOrGone,
  idOf,
  ignoreGone,
  isArchived,
  listedOrGet,
  overlay,
  uploadLocalFile,
} from "../../managed-dialect/remote.js";
import { compact, isRecord, type Json, nonEmpty, records, strList } from "../../managed-dialect/spec.js";
import type {
  DeploymentHandler,
  HandlerContext,
  Owner,
  PriorState,
  RemoteObject,
  Spec,
} from "../../types.js";
import { UnforeseeableError } from "../../unforeseeable.js";
import { listDeployments } from "../listing.js";
import { providerCProfile } from "../profile.js";
import { MOUNT_ROOT, PAGE_SIZE } from "../wire-decisions.js";

type Uploads = Record<string, string>;

async function readRubrics(spec: Json, configDir: string): Promise<Json> {
  const events = await Promise.all(
    records(spec.initial_events).map(async (event) => {
      const file = str(event.rubric_file);
      if (event.type !== "user.define_outcome" || !file || event.rubric !== undefined) return event;
      const { bytes } = await readLocalFile(configDir, file);
      const { rubric_file: _dropped, ...rest } = event;
      return { ...rest, rubric: new TextDecoder().decode(bytes) };
    }),
  );
  return Array.isArray(spec.initial_events) ? { ...spec, initial_events: events } : spec;
}

/** The local sources the deployment's file resources upload (those without a `file_id`). */
function fileSources(spec: Json): string[] {
  return records(spec.resources).flatMap((r) => {
    const source = str(r.source);
    return r.type === "file" && source && !str(r.file_id) ? [source] : [];
  });
}

/**
 * A file uploaded from a local `source` without a `mount_path` is mounted by the provider at
 * `/workspace/<uploaded filename>` (the basename of the source): the declaration compares as that
 * path, or every plan after the apply would show the mount as drift.
 */
function withDefaultMount(resource: Json): Json {
  const source = str(resource.source);
  if (resource.type !== "file" || !source || resource.mount_path !== undefined) return resource;
  return { ...resource, mount_path: `${MOUNT_ROOT}/${basename(source)}` };
}

/** The content digests the last apply uploaded, by source (none in a state written before them). */
function appliedDigests(prior?: PriorState): Record<string, string> {
  const digests = prior?.spec.source_digests;
  return isRecord(digests) ? (digests as Record<string, string>) : {};
}

/**
 * The file id of every local `source` the deployment mounts: the known one while its content is
 * the one the last apply uploaded, else the upload an interrupted run made of these very bytes,
 * else a new upload, journaled first. The ids this call uploaded are pushed to `made`.
 */
async function uploadSources(
  ctx: HandlerContext,
  spec: Json,
  known: Uploads,
  made: string[],
  digests: Record<string, string> = {},
): Promise<Uploads> {
  const uploads: Uploads = {};
  for (const source of fileSources(spec)) {
    if (uploads[source]) continue;
    const local = await readLocalFile(ctx.configDir, source);
    const same = known[source];
    if (same && digests[source] === local.sha256) {
      uploads[source] = same;
      continue;
    }
    const left = await reusableUpload(ctx, source, local.sha256);
    if (left) {
      uploads[source] = idOf(left);
      continue;
    }
    await journalUpload(ctx, {
      filename: local.filename,
      size: local.bytes.byteLength,
      unique: false,
      carries: source,
      digest: local.sha256,
    });
    uploads[source] = idOf(await uploadLocalFile(ctx.http, ctx.configDir, source, { signal: ctx.signal }));
    made.push(uploads[source]);
  }
  return uploads;
}

/**
 * Sends the deployment call that uses the uploads; when the provider answers it with an error,
 * deletes what this call uploaded (best effort: the provider's answer is what the user needs).
 * A lost answer keeps them: the deployment may exist and use them, and the journal lets the next
 * run adopt them with it or delete them.
 */
async function withUploads<T>(
  ctx: HandlerContext,
  made: readonly string[],
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ProviderHttpError && error.status !== 0)
      for (const id of made)
        await ignoreGone(() =>
          ctx.http.request({ method: "DELETE", path: `/files/${id}`, signal: ctx.signal }),
        ).catch(() => {});
    throw error;
  }
}

/**
 * What an adopted deployment mounts: its uploads by source and, from the journal, the digest of
 * the content each carried (so the adopting plan compares the content too).
 */
interface Adopted {
  uploads: Uploads;
  digests?: Record<string, string>;
}

/**
 * The uploads of a deployment adopted after an interrupted run: the files it mounts that the
 * run's journaled uploads made, by the source each one carried.
 */
async function adoptedUploads(ctx: HandlerContext, remote: Json): Promise<Adopted> {
  const leftovers = (ctx.leftoverUploads ?? []).filter((u) => u.carries);
  if (leftovers.length === 0) return { uploads: {} };
  const listed = await listFiles(ctx);
  const mounted = new Set(records(remote.resources).map((r) => str(r.file_id)));
  const uploads: Uploads = {};
  const digests: Record<string, string> = {};
  for (const upload of leftovers)
    for (const file of filesOfUpload(upload, listed))
      if (mounted.has(idOf(file))) {
        uploads[upload.carries!] = idOf(file);
        if (upload.digest) digests[upload.carries!] = upload.digest;
      }
  return { uploads, digests };
}

/**
 * Deletes the uploads of the last apply that the deployment no longer mounts (an edited source's
 * old content, a source no longer declared); call once the provider took the new body.
 */
async function pruneUploads(ctx: HandlerContext, before: Uploads, after: Uploads): Promise<void> {
  const kept = new Set(Object.values(after));
  for (const id of Object.values(before))
    if (!kept.has(id))
      await ignoreGone(() =>
        ctx.http.request({ method: "DELETE", path: `/files/${id}`, signal: ctx.signal }),
      );
}

function refsWith(ctx: HandlerContext, uploads: Uploads): DeploymentRefs {
  return {
    resolve: (kind, name) => ctx.resolve(kind, name),
    resolveExtra: (kind, name) => ctx.resolveExtra(kind, name),
    uploadedFile: (source) => {
      const id = uploads[source];
      if (!id) throw new UnforeseeableError("internal", `file ${source} was not uploaded (internal)`);
      return id;
    },
  };
}

function deploymentBody(ctx: HandlerContext, spec: Json, uploads: Uploads): Json {
  const refs = refsWith(ctx, uploads);
  // Repository tokens travel in this body: keep them out of any error message.
  for (const resource of records(spec.resources)) {
    const token = str(resource.authorization_token);
    if (token) ctx.http.addSecret(token);
  }
  const agentName = str(spec.agent);
  if (!agentName)
    throw new DeclarationError("provider_c.deployment_without_agent", "a deployment needs agent");
  const agentId = ctx.resolve("agents", agentName);
  // Environment and vaults fall back to the agent's session defaults when the deployment omits them.
  const session = ctx.resolveExtra("agents", agentName)?.session;
  const sessionDefaults = isRecord(session) ? session : {};
  const environment = str(spec.environment);
  const environmentId = environment
    ? ctx.resolve("environments", environment)
    : str(sessionDefaults.environment_id);
  if (!environmentId)
    throw new DeclarationError(
      "provider_c.deployment_without_environment",
      `deployment needs an environment (declare environment here or on agent "${agentName}")`,
    );
  const vaults = strList(spec.vaults);
  const events = initialEventsToWire(spec.initial_events);
  if (events.length === 0)
    throw new DeclarationError(
      "provider_c.deployment_without_events",
      "provider_c deployments need at least one initial_events entry",
    );
  const schedule = scheduleToWire(spec.schedule);
  return {
    name: logicalNameOf(ctx.owner.resource),
    agent:
      typeof spec.agent_version === "number"
        ? { type: "agent", id: agentId, version: spec.agent_version }
        : agentId,
    environment_id: environmentId,
    initial_events: events,
    vault_ids:
      vaults.length > 0 ? vaults.map((v) => ctx.resolve("vaults", v)) : strList(sessionDefaults.vault_ids),
    resources: deploymentResources(spec, MOUNT_ROOT, refs, true),
    schedule: schedule ?? null,
    description: str(spec.description) ?? "",
  };
}

function reverseRefs(ctx: HandlerContext, declared: Json | undefined): Map<string, string> {
  const reverse = new Map<string, string>();
  const add = (kind: Parameters<HandlerContext["resolve"]>[0], name: string | undefined) => {
    if (!name) return;
    try {
      reverse.set(ctx.resolve(kind, name), name);
    } catch {
      // not applied: shown as an id
    }
  };
  if (!declared) return reverse;
  add("agents", str(declared.agent));
  add("environments", str(declared.environment));
  for (const v of strList(declared.vaults)) add("vaults", v);
  for (const m of strList(declared.memory_stores)) add("memory_stores", m);
  for (const r of records(declared.resources))
    if (r.type === "memory_store") add("memory_stores", str(r.memory_store));
  return reverse;
}

function fromWire(ctx: HandlerContext, remote: Json, declared: Json | undefined, uploads: Uploads): Json {
  const reverse = reverseRefs(ctx, declared);
  const sources = new Map(Object.entries(uploads).map(([source, id]) => [id, source]));
  const { resources, memory_stores } = deploymentResourcesFromWire(remote.resources, reverse, (id) =>
    sources.get(id),
  );
  const agent = remote.agent;
  const agentId = typeof agent === "string" ? agent : isRecord(agent) ? str(agent.id) : undefined;
  const version = isRecord(agent) && typeof agent.version === "number" ? agent.version : undefined;
  const environmentId = str(remote.environment_id) ?? "";
  const declaredEnvironment = declared ? str(declared.environment) : undefined;
  return compact({
    agent: reverse.get(agentId ?? "") ?? agentId,
    agent_version: declared && typeof declared.agent_version === "number" ? version : undefined,
    // An environment inherited from the agent is not part of the declaration: compare only a declared one.
    environment: declaredEnvironment ? (reverse.get(environmentId) ?? environmentId) : undefined,
    vaults:
      declared && strList(declared.vaults).length > 0
        ? strList(remote.vault_ids)
            .map((id) => reverse.get(id) ?? id)
            .sort()
        : undefined,
    memory_stores,
    resources,
    initial_events: initialEventsFromWire(remote.initial_events),
    schedule: scheduleFromWire(remote.schedule),
    description: nonEmpty(str(remote.description)),
    metadata: userMetadata(remote.metadata),
  });
}

function toRemote(
  ctx: HandlerContext,
  remote: Json,
  declared: Json | undefined,
  uploads: Uploads,
  digests?: Record<string, string>,
): RemoteObject {
  const owner = ownerOf(remote.metadata);
  const spec = fromWire(ctx, remote, declared, uploads);
  return {
    id: idOf(remote),
    // The wire shows no content: the last-applied digests stand, except for an adopted deployment.
    spec: digests && Object.keys(digests).length > 0 ? { ...spec, source_digests: digests } : spec,
    ...(owner ? { owner } : {}),
    archived: isArchived(remote),
    extra: { uploads, status: str(remote.status) },
  };
}

const uploadsOf = (prior?: PriorState): Uploads =>
  isRecord(prior?.extra?.uploads) ? (prior.extra.uploads as Uploads) : {};

export const providerCDeploymentHandler: DeploymentHandler = {
  list: listDeployments,
  desired: async (spec, ctx) => {
    const withRubrics = await readRubrics(spec, ctx.configDir);
    const compared = overlay(withRubrics, canonicalDeployment(withRubrics, MOUNT_ROOT), DEPLOYMENT_COMPARED);
    const sources = fileSources(spec);
    if (sources.length === 0) return compared;
    return {
      ...compared,
      resources: records(compared.resources).map(withDefaultMount),
      source_digests: await sourceDigests(ctx.configDir, sources),
    };
  },
  sensitive: ["resources.*.authorization_token"],

  async create(ctx: HandlerContext, spec: Spec) {
    const declared = await readRubrics(spec, ctx.configDir);
    const made: string[] = [];
    const response = await withUploads(ctx, made, async () => {
      const uploads = await uploadSources(ctx, declared, {}, made);
      const metadata = withOwnership(spec.metadata, ctx.owner, METADATA_LIMITS);
      const body = deploymentBody(ctx, declared, uploads);
      if (body.schedule === null) delete body.schedule;
      const answer = await ctx.http.request<Json>({
        method: "POST",
        path: "/deployments",
        json: { ...body, metadata },
        signal: ctx.signal,
      });
      return { answer, uploads };
    });
    return toRemote(ctx, response.answer.body, declared, response.uploads);
  },

  ...listReader(providerCProfile, "/deployments"),

  async read(ctx, id, prior, listed) {
    const remote = await listedOrGet(ctx.http, listed, { path: `/deployments/${id}`, signal: ctx.signal });
    if (remote === "gone" || isArchived(remote)) return "gone";
    if (prior) return toRemote(ctx, remote, prior.spec, uploadsOf(prior));
    const adopted = await adoptedUploads(ctx, remote);
    return toRemote(ctx, remote, undefined, adopted.uploads, adopted.digests);
  },

  async update(ctx, id, spec, prior) {
    const declared = await readRubrics(spec, ctx.configDir);
    const made: string[] = [];
    const response = await withUploads(ctx, made, async () => {
      const uploads = await uploadSources(ctx, declared, uploadsOf(prior), made, appliedDigests(prior));
      const metadata = withOwnership(spec.metadata, ctx.owner, METADATA_LIMITS);
      const current = await getOrGone(ctx.http, { path: `/deployments/${id}`, signal: ctx.signal });
      const answer = await ctx.http.request<Json>({
        method: "POST",
        path: `/deployments/${id}`,
        json: {
          ...deploymentBody(ctx, declared, uploads),
          metadata: current === "gone" ? metadata : metadataPatch(current.metadata, metadata),
        },
        signal: ctx.signal,
      });
      return { answer, uploads };
    });
    await pruneUploads(ctx, uploadsOf(prior), response.uploads);
    return toRemote(ctx, response.answer.body, declared, response.uploads);
  },

  async remove(ctx, id, prior) {
    await ignoreGone(() =>
      ctx.http.request({ method: "POST", path: `/deployments/${id}/archive`, json: {}, signal: ctx.signal }),
    );
    for (const fileId of Object.values(uploadsOf(prior)))
      await ignoreGone(() =>
        ctx.http.request({ method: "DELETE", path: `/files/${fileId}`, signal: ctx.signal }),
      );
  },

  async run(ctx, id) {
    const response = await ctx.http.request<Json>({
      method: "POST",
      path: `/deployments/${id}/run`,
      json: {},
      signal: ctx.signal,
    });
    const run = response.body ?? {};
    if (isRecord(run.error))
      throw new UnforeseeableError(
        "answer",
        `deployment run ${String(run.id)} failed: ${String(run.error.message ?? run.error.type)}`,
      );
    return compact({ run_id: str(run.id), session_id: str(run.session_id) });
  },

  async findOwned(ctx: HandlerContext, owner: Owner) {
    const hit = await findOwnedIn(ctx.http, "/deployments", owner, {
      pageSize: PAGE_SIZE,
      signal: ctx.signal,
    });
    if (!hit) return undefined;
    const adopted = await adoptedUploads(ctx, hit);
    return toRemote(ctx, hit, undefined, adopted.uploads, adopted.digests);
  },
  settleUploads,
};
