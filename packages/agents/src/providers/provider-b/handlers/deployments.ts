// provider_b deployments (Managed API only): tunnels dropped with a warning, lists replaced on
// update, user metadata tombstoned, archived on removal.

import { DeclarationError } from "../../common/errors.js";
import {
  getOrGone,
  isArchived,
  listedOrGone,
  removeTolerant,
  send,
  type Wire,
} from "../../common/handler-kit.js";
import { logicalName, metadataPatch, ownerOf, withOwnership } from "../../common/ownership.js";
import { firstMatch, pageListReader, walkPages } from "../../common/paging.js";
import { deploymentFromWire, runDeployment } from "../../common/run.js";
import { deleteUploads, priorUploads, sourceDigests, Uploads } from "../../common/uploads.js";
import type { DeploymentHandler, HandlerContext, PriorState, RemoteObject, Spec } from "../../types.js";
import { type DeploymentDecl, deploymentToWire } from "../mappers/deployment.js";
import { client, uploadFile } from "./shared.js";

async function body(ctx: HandlerContext, spec: Spec, current: Wire | undefined, uploads: Uploads) {
  const decl = spec as unknown as DeploymentDecl;
  const agentExtra = ctx.resolveExtra("agents", decl.agent);
  if (agentExtra?.delivery === "forward") {
    throw new DeclarationError(
      "provider_b.deployment_of_forward_agent",
      `deployment "${logicalName(ctx.owner)}": agent ${decl.agent} uses Forward delivery, which cannot be deployed`,
    );
  }
  const resourceIds: (string | undefined)[] = [];
  for (const r of decl.resources ?? []) {
    if (r.type === "file") {
      resourceIds.push(r.file_id ?? (r.source ? await uploads.idFor(r.source) : undefined));
    } else if (r.type === "memory_store") resourceIds.push(ctx.resolve("memory_stores", r.memory_store));
    else resourceIds.push(undefined);
  }
  const rubricFileIds: (string | undefined)[] = [];
  for (const e of decl.initial_events ?? []) {
    rubricFileIds.push(
      e.type === "user.define_outcome" && e.rubric_file ? await uploads.idFor(e.rubric_file) : undefined,
    );
  }
  const metadata = current
    ? { ...withOwnership({}, ctx.owner), ...metadataPatch(current.metadata, decl.metadata ?? {}) }
    : withOwnership(decl.metadata, ctx.owner);
  return deploymentToWire(decl, {
    name: logicalName(ctx.owner),
    agentId: ctx.resolve("agents", decl.agent),
    environmentId: decl.environment ? ctx.resolve("environments", decl.environment) : undefined,
    vaultIds: (decl.vaults ?? []).map((v) => ctx.resolve("vaults", v)),
    resourceIds,
    memoryStoreIds: (decl.memory_stores ?? []).map((m) => ctx.resolve("memory_stores", m)),
    rubricFileIds,
    metadata,
    update: current !== undefined,
    remoteHasSchedule: Boolean((current?.schedule as { expression?: string } | null | undefined)?.expression),
    warn: (m) => ctx.warn(m),
  });
}

function uploader(ctx: HandlerContext, prior?: PriorState): Uploads {
  const managed = client(ctx, "managed");
  return new Uploads(
    ctx,
    priorUploads(prior),
    async (source) => (await uploadFile(ctx, managed, source, "session_resource")).id,
  );
}

function withUploads(remote: RemoteObject, uploads: Uploads["ledger"]): RemoteObject {
  return { ...remote, extra: { ...remote.extra, uploads } };
}

export const deploymentHandler: DeploymentHandler = {
  replaceOn: ["agent"],
  // Git tokens are secrets: kept in state only as keyed hashes.
  sensitive: ["resources.*.authorization_token"],
  // The wire cannot clear a schedule in an update (docs/wire/provider-b.md §3.7): archive and recreate.
  replaceOnRemoval: ["schedule"],
  async desired(declared, dctx) {
    // The deployment API takes no tunnel: it is never sent (validate warns), so it is no part of
    // what the plan compares, and changing it plans nothing.
    const { tunnel: _never, ...spec } = declared;
    const decl = spec as unknown as DeploymentDecl;
    const sources = [
      ...(decl.resources ?? []).flatMap((r) =>
        r.type === "file" && !r.file_id && r.source ? [r.source] : [],
      ),
      ...(decl.initial_events ?? []).flatMap((e) =>
        e.type === "user.define_outcome" && e.rubric_file ? [e.rubric_file] : [],
      ),
    ];
    return sources.length ? { ...spec, source_digests: await sourceDigests(dctx.configDir, sources) } : spec;
  },
  async create(ctx, spec) {
    const uploads = uploader(ctx);
    const json = await body(ctx, spec, undefined, uploads);
    return withUploads(
      deploymentFromWire(
        await send(ctx, client(ctx, "managed"), { method: "POST", path: "/deployments", json }),
      ),
      uploads.ledger,
    );
  },
  // `{data, has_more, next_page}` pages on the Managed API, each item as its GET shows it.
  ...pageListReader("/deployments"),
  async read(ctx, id, prior, listed) {
    const wire = await listedOrGone(client(ctx, "managed"), listed, `/deployments/${id}`, ctx.signal);
    if (wire === "gone" || isArchived(wire)) return "gone";
    return withUploads(deploymentFromWire(wire), priorUploads(prior));
  },
  async update(ctx, id, spec, prior) {
    const managed = client(ctx, "managed");
    const uploads = uploader(ctx, prior);
    const current = await send(ctx, managed, { method: "GET", path: `/deployments/${id}` });
    const json = await body(ctx, spec, current, uploads);
    const remote = deploymentFromWire(
      await send(ctx, managed, { method: "POST", path: `/deployments/${id}`, json }),
    );
    await uploads.pruneReplaced(managed);
    return withUploads(remote, uploads.ledger);
  },
  run: (ctx, id) => runDeployment(ctx, client(ctx, "managed"), id),
  async remove(ctx, id, prior) {
    const managed = client(ctx, "managed");
    try {
      await removeTolerant(managed, "POST", `/deployments/${id}/archive`, ctx.signal);
    } catch (error) {
      // Archiving an archived deployment is refused (409 ALREADY_ARCHIVED), e.g. after a run died
      // between the archive and recording it: it is as removed as it gets.
      const current = await getOrGone(managed, `/deployments/${id}`, ctx.signal);
      if (current !== "gone" && !isArchived(current)) throw error;
    }
    await deleteUploads(ctx, managed, priorUploads(prior));
  },
  async findOwned(ctx, owner) {
    // Deployment lists page with `page`/`next_page` (not after_id).
    const found = await firstMatch(
      walkPages<Wire>(client(ctx, "managed"), "/deployments", {}, ctx.signal),
      (d) => {
        const o = ownerOf(d.metadata);
        return !isArchived(d) && o?.project === owner.project && o.resource === owner.resource;
      },
    );
    return found ? deploymentFromWire(found) : undefined;
  },
};
