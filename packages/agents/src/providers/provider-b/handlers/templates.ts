// Forward delivery: an agent becomes a Forward Template. Its Files are uploaded through the
// Forward File API, explicit Forward memory stores are mounted read-only to (defaults.identity,
// Template), and the default memory store is reconciled after every save.

import { DeclarationError } from "../../common/errors.js";
import { getOrGone, send, type Wire } from "../../common/handler-kit.js";
import { type FileLister, fileIdOf, journalUpload, reusableUpload } from "../../common/journaled-uploads.js";
import { readLocalFile } from "../../common/local-files.js";
import { logicalName, metadataPatch, ownerOf, withOwnership } from "../../common/ownership.js";
import { collect, walkAfterId } from "../../common/paging.js";
import { rosterObserved, withRoster } from "../../common/roster.js";
import type { HandlerContext, PriorState, RemoteObject, Spec } from "../../types.js";
import { derivedOf } from "../derive.js";
import { type AgentDecl, agentFromWire, resolveSkillRef, templateToWire } from "../mappers/agent.js";
import { EXPLICIT_FORWARD_MOUNT_ACCESS, FORWARD_FILE_PURPOSE, rosterIdsFromWire } from "../wire-decisions.js";
import {
  type DefaultStoreDecl,
  listMounts,
  observeDefaultStore,
  reconcileDefaultStore,
} from "./default-store.js";
import { client, uploadFile } from "./shared.js";

type FileRecord = Record<string, { id: string; sha256: string }>;

function identityId(ctx: HandlerContext, spec: Spec, needed: string): string | undefined {
  const identity = derivedOf(spec).identity;
  if (!identity) {
    if (needed)
      throw new DeclarationError(
        "provider_b.forward_memory_without_identity",
        `agent "${logicalName(ctx.owner)}": ${needed} needs defaults.identity`,
      );
    return undefined;
  }
  return ctx.resolve("identities", identity);
}

/**
 * provider_b's Forward files carry no metadata either: like a provider_c deployment's sources
 * (docs/state.md#uploads), each upload is journaled before its request, carrying the file's name
 * and content digest, and an upload of the same bytes an interrupted run left is used instead of a
 * copy, so kills between the upload and the Template call never pile up files. A Template adopted
 * after a lost answer reads without its files (a read cannot show them), so the update that
 * follows takes up that same upload the same way.
 */
export function forwardFiles(ctx: HandlerContext): HandlerContext {
  return Object.create(ctx, { http: { value: client(ctx, "forward") } }) as HandlerContext;
}

/** The Forward File API lists with `after_id` pages. */
export const listForwardFiles: FileLister = (ctx) =>
  collect(walkAfterId<Wire>(ctx.http, "/files", {}, ctx.signal));

async function uploadJournaled(
  ctx: HandlerContext,
  file: { name: string; source: string },
  local: { filename: string; bytes: Uint8Array; sha256: string },
): Promise<{ id: string; sha256: string }> {
  const forward = forwardFiles(ctx);
  const left = await reusableUpload(forward, file.name, local.sha256, undefined, listForwardFiles);
  if (left) return { id: fileIdOf(left), sha256: local.sha256 };
  await journalUpload(
    forward,
    {
      filename: local.filename,
      size: local.bytes.byteLength,
      unique: false,
      carries: file.name,
      digest: local.sha256,
    },
    listForwardFiles,
  );
  return uploadFile(ctx, forward.http, file.source, FORWARD_FILE_PURPOSE);
}

async function syncFiles(
  ctx: HandlerContext,
  spec: Spec,
  prior: FileRecord,
): Promise<{ files: FileRecord; stale: string[] }> {
  const files: FileRecord = {};
  for (const f of derivedOf(spec).files ?? []) {
    if (!f.source)
      throw new DeclarationError(
        "provider_b.forward_file_empty_path",
        `agent "${logicalName(ctx.owner)}": a file given as a path is empty; give a path relative to agents.yaml`,
      );
    const local = await readLocalFile(ctx.configDir, f.source);
    const known = prior[f.name];
    files[f.name] = known && known.sha256 === local.sha256 ? known : await uploadJournaled(ctx, f, local);
  }
  const keep = new Set(Object.values(files).map((f) => f.id));
  return {
    files,
    stale: Object.values(prior)
      .map((f) => f.id)
      .filter((id) => !keep.has(id)),
  };
}

async function body(
  ctx: HandlerContext,
  spec: Spec,
  files: FileRecord,
  update: boolean,
  remoteMetadata?: unknown,
  prior?: PriorState,
) {
  const decl = spec as unknown as AgentDecl;
  const name = logicalName(ctx.owner);
  if (!decl.environment)
    throw new DeclarationError(
      "provider_b.forward_template_without_environment",
      `agent "${name}": a Forward Template needs an environment`,
    );
  const roster = decl.multiagent?.agents.map((m) => {
    if (typeof m !== "string") {
      throw new DeclarationError(
        "provider_b.forward_coordinator_with_agent_id",
        `agent "${name}": a Forward coordinator takes only project agents (its roster needs template ids), not {agent_id}`,
      );
    }
    return ctx.resolve("agents", m);
  });
  return templateToWire(decl, {
    name: decl.name ?? name,
    // Template updates merge metadata: a key dropped from the file is removed with null.
    metadata: update
      ? { ...withOwnership({}, ctx.owner), ...metadataPatch(remoteMetadata, decl.metadata ?? {}) }
      : withOwnership(decl.metadata, ctx.owner),
    skills: (decl.skills ?? []).map((s) => resolveSkillRef(s, (n) => ctx.resolve("skills", n))),
    roster,
    update,
    environmentId: ctx.resolve("environments", decl.environment),
    vaultIds: decl.vault ? [ctx.resolve("vaults", decl.vault)] : [],
    fileIds: Object.values(files).map((f) => f.id),
    tunnelId: decl.tunnel ? ctx.resolve("tunnels", decl.tunnel) : undefined,
    // Removing the block resets the tools to a new Template's default (none): the plan shows the
    // removal, so apply sends it. Never declared, nothing is sent (spec: omitted = untouched).
    resetManagedTools:
      update && !decl.managed_tool_config && prior !== undefined && "managed_tool_config" in prior.spec,
  });
}

/** Mounts declared explicit stores read-only; detaches the ones this project mounted before and dropped. */
async function syncMounts(
  ctx: HandlerContext,
  spec: Spec,
  templateId: string,
  identity: string | undefined,
  before: string[],
) {
  const decl = spec as unknown as AgentDecl;
  const wanted = (decl.memory_stores ?? []).map((s) => ctx.resolve("memory_stores", s));
  if (!identity) return [];
  const forward = client(ctx, "forward");
  const mounted = new Set((await listMounts(ctx, identity, templateId)).map((m) => m.memory_store_id));
  for (const id of wanted) {
    if (mounted.has(id)) continue;
    await send(ctx, forward, {
      method: "POST",
      path: `/identities/${identity}/templates/${templateId}/memory_stores`,
      json: { memory_store_id: id, access: EXPLICIT_FORWARD_MOUNT_ACCESS },
    });
  }
  for (const id of before.filter((b) => !wanted.includes(b))) {
    await forward.request({
      method: "DELETE",
      path: `/identities/${identity}/templates/${templateId}/memory_stores/${id}`,
      allowStatus: [404],
      signal: ctx.signal,
    });
  }
  return wanted;
}

async function finish(
  ctx: HandlerContext,
  spec: Spec,
  wire: Wire,
  files: FileRecord,
  mountsBefore: string[],
): Promise<RemoteObject> {
  const decl = spec as unknown as AgentDecl;
  const templateId = String(wire.id);
  const identity = identityId(
    ctx,
    spec,
    decl.memory_stores?.length
      ? "mounting memory stores"
      : decl.default_memory_store
        ? "default_memory_store"
        : "",
  );
  const mounts = await syncMounts(ctx, spec, templateId, identity, mountsBefore);
  const remote = toTemplateRemote(ctx, wire, spec);
  let store: Record<string, unknown> | undefined;
  if (decl.default_memory_store && identity) {
    const status = await reconcileDefaultStore(ctx, identity, templateId, decl.default_memory_store);
    store = status.status === "pending" ? { pending: true } : { ...status };
    remote.spec.default_memory_store =
      status.status === "pending" ? { pending: true } : { ...desiredStore(decl.default_memory_store) };
  }
  remote.extra = {
    ...remote.extra,
    files,
    mounts,
    ...(identity ? { identity_id: identity } : {}),
    ...(store ? { default_memory_store: store } : {}),
  };
  return remote;
}

function desiredStore(d: DefaultStoreDecl): Record<string, unknown> {
  return {
    name: d.name,
    ...(d.description !== undefined ? { description: d.description } : {}),
    ...(d.delete_on_destroy !== undefined ? { delete_on_destroy: d.delete_on_destroy } : {}),
  };
}

export function toTemplateRemote(ctx: HandlerContext, wire: Wire, declared?: Spec): RemoteObject {
  const roster = rosterObserved(ctx, rosterIdsFromWire(wire.multiagent), declared);
  return {
    id: String(wire.id),
    // The remote name is always shown: plan compares it with the name apply sends (desired).
    spec: withRoster({ ...agentFromWire(wire, logicalName(ctx.owner), true), name: wire.name }, roster),
    owner: ownerOf(wire.metadata),
    extra: { delivery: "forward" },
  };
}

export async function createTemplate(ctx: HandlerContext, spec: Spec): Promise<RemoteObject> {
  const { files } = await syncFiles(ctx, spec, {});
  const wire = await send(ctx, client(ctx, "forward"), {
    method: "POST",
    path: "/templates",
    json: await body(ctx, spec, files, false),
  });
  return finish(ctx, spec, wire, files, []);
}

export async function updateTemplate(
  ctx: HandlerContext,
  id: string,
  spec: Spec,
  prior?: PriorState,
): Promise<RemoteObject> {
  const { files, stale } = await syncFiles(ctx, spec, (prior?.extra?.files as FileRecord | undefined) ?? {});
  const forward = client(ctx, "forward");
  const current = await send(ctx, forward, { method: "GET", path: `/templates/${id}` });
  const wire = await send(ctx, forward, {
    method: "POST",
    path: `/templates/${id}`,
    json: await body(ctx, spec, files, true, current.metadata, prior),
  });
  for (const fileId of stale)
    await forward.request({
      method: "DELETE",
      path: `/files/${fileId}`,
      allowStatus: [404],
      signal: ctx.signal,
    });
  return finish(ctx, spec, { ...wire, id }, files, (prior?.extra?.mounts as string[] | undefined) ?? []);
}

export async function readTemplate(
  ctx: HandlerContext,
  id: string,
  prior?: PriorState,
  listed?: Wire,
): Promise<RemoteObject | "gone"> {
  // `listed`: the Template as refresh's list walk showed it (plan from lists), else one GET.
  const wire = listed ?? (await getOrGone(client(ctx, "forward"), `/templates/${id}`, ctx.signal));
  if (wire === "gone" || wire.status === "archived") return "gone";
  const remote = toTemplateRemote(ctx, wire, prior?.spec);
  // managed_tool_config left out of the file is not managed by us (spec: omitted = untouched),
  // so whatever the Template has then is not drift.
  if (prior && !("managed_tool_config" in prior.spec)) delete remote.spec.managed_tool_config;
  const identity = prior?.extra?.identity_id;
  const declared = prior?.spec.default_memory_store as DefaultStoreDecl | undefined;
  if (declared && typeof identity === "string") {
    const store = await observeDefaultStore(ctx, identity, id, declared);
    // Pending is a known state, not drift: the provider creates the store with the first Forward
    // Session, so until then there is nothing to compare (and nothing apply could do about it).
    if (store.pending === true)
      ctx.warn(
        "default memory store pending: the provider creates it with the first Forward Session of this identity and template",
      );
    else {
      remote.spec.default_memory_store = store;
      // The last apply found the store pending: its first rename is still to come, not drift.
      const applied = prior?.extra?.default_memory_store as { pending?: boolean } | undefined;
      if (applied?.pending === true) remote.notYetApplied = ["default_memory_store"];
    }
  }
  remote.extra = { ...prior?.extra, ...remote.extra };
  return remote;
}

export async function removeTemplate(ctx: HandlerContext, id: string, prior?: PriorState): Promise<void> {
  const forward = client(ctx, "forward");
  const identity = prior?.extra?.identity_id;
  // Owned explicit mounts are detached first; the system store mount is left to its policy.
  if (typeof identity === "string") {
    for (const storeId of (prior?.extra?.mounts as string[] | undefined) ?? []) {
      await forward.request({
        method: "DELETE",
        path: `/identities/${identity}/templates/${id}/memory_stores/${storeId}`,
        allowStatus: [404],
        signal: ctx.signal,
      });
    }
  }
  await forward.request({
    method: "POST",
    path: `/templates/${id}/archive`,
    json: {},
    allowStatus: [404],
    signal: ctx.signal,
  });
  for (const file of Object.values((prior?.extra?.files as FileRecord | undefined) ?? {})) {
    await forward.request({
      method: "DELETE",
      path: `/files/${file.id}`,
      allowStatus: [404],
      signal: ctx.signal,
    });
  }
}
