// provider_a native deployments: created, updated in place (full replacement of lists, explicit
// clears), archived on removal. Local `source` files of resources are uploaded and audited first.
import { isArchived, listedOrGone, removeTolerant, send, type Wire } from "../../common/handler-kit.js";
import { logicalName, ownerOf, sameOwner, withOwnership } from "../../common/ownership.js";
import { firstMatch, pageListReader, walkPages } from "../../common/paging.js";
import { deploymentFromWire, runDeployment } from "../../common/run.js";
import { deleteUploads, priorUploads, sourceDigests, Uploads } from "../../common/uploads.js";
import type { DeploymentHandler, HandlerContext, RemoteObject, Spec } from "../../types.js";
import { type DeploymentDecl, deploymentToWire } from "../mappers/deployment.js";
import { settleUploads, uploadFile } from "./files.js";
import type { ProviderAOptions } from "./options.js";

export function createDeploymentHandler(opts: ProviderAOptions): DeploymentHandler {
  async function body(ctx: HandlerContext, spec: Spec, update: boolean, uploads: Uploads) {
    const decl = spec as unknown as DeploymentDecl;
    const fileIds: (string | undefined)[] = [];
    for (const resource of decl.resources ?? []) {
      if (resource.type !== "file") fileIds.push(undefined);
      else if (resource.file_id) fileIds.push(resource.file_id);
      else if (resource.source) fileIds.push(await uploads.idFor(resource.source));
      else fileIds.push(undefined);
    }
    const environment = decl.environment ?? (decl as { environment_id?: string }).environment_id;
    return deploymentToWire(decl, {
      name: logicalName(ctx.owner),
      agentId: ctx.resolve("agents", decl.agent),
      environmentId: environment ? ctx.resolve("environments", environment) : "",
      vaultIds: (decl.vaults ?? []).map((v) => ctx.resolve("vaults", v)),
      fileIds,
      metadata: withOwnership(decl.metadata, ctx.owner),
      update,
      warn: (m) => ctx.warn(m),
    });
  }
  return {
    replaceOn: ["agent"],
    // Git tokens are secrets: kept in state only as keyed hashes.
    sensitive: ["resources.*.authorization_token"],
    async desired(spec, dctx) {
      const decl = spec as unknown as DeploymentDecl;
      const sources = (decl.resources ?? []).flatMap((r) =>
        r.type === "file" && !r.file_id && r.source ? [r.source] : [],
      );
      // provider_a has no user.define_outcome event (validate warns, AGENTS1512): the mapper
      // drops it, so the plan must not show it as something apply creates.
      const events = decl.initial_events?.filter((e) => e.type !== "user.define_outcome");
      return {
        ...spec,
        ...(events ? { initial_events: events } : {}),
        ...(decl.schedule ? { schedule: decl.schedule } : {}),
        metadata: { ...(decl.metadata ?? {}) },
        ...(sources.length ? { source_digests: await sourceDigests(dctx.configDir, sources) } : {}),
      };
    },
    async create(ctx, spec) {
      const uploads = new Uploads(ctx, {}, async (source) =>
        String((await uploadFile(ctx, opts, source)).id),
      );
      let remote: RemoteObject;
      try {
        const json = await body(ctx, spec, false, uploads);
        remote = deploymentFromWire(
          await send(ctx, ctx.http, { method: "POST", path: "/deployments", json }),
        );
      } catch (error) {
        await uploads.discardNew(ctx.http);
        throw error;
      }
      return { ...remote, extra: { ...remote.extra, uploads: uploads.ledger } };
    },
    ...pageListReader("/deployments"),
    async read(ctx, id, prior, listed) {
      const wire = await listedOrGone(ctx.http, listed, `/deployments/${id}`, ctx.signal);
      if (wire === "gone" || isArchived(wire)) return "gone";
      const remote = deploymentFromWire(wire);
      return { ...remote, extra: { ...remote.extra, uploads: priorUploads(prior) } };
    },
    async update(ctx, id, spec, prior) {
      const uploads = new Uploads(ctx, priorUploads(prior), async (source) =>
        String((await uploadFile(ctx, opts, source)).id),
      );
      let remote: RemoteObject;
      try {
        const json = await body(ctx, spec, true, uploads);
        remote = deploymentFromWire(
          await send(ctx, ctx.http, { method: "POST", path: `/deployments/${id}`, json }),
        );
      } catch (error) {
        await uploads.discardNew(ctx.http);
        throw error;
      }
      await uploads.pruneReplaced(ctx.http);
      return { ...remote, extra: { ...remote.extra, uploads: uploads.ledger } };
    },
    run: (ctx, id) => runDeployment(ctx, ctx.http, id),
    async remove(ctx, id, prior) {
      await removeTolerant(ctx.http, "POST", `/deployments/${id}/archive`, ctx.signal);
      await deleteUploads(ctx, ctx.http, priorUploads(prior));
    },
    settleUploads,
    async findOwned(ctx, owner) {
      const found = await firstMatch(
        walkPages<Wire>(ctx.http, "/deployments", {}, ctx.signal),
        (d) => !isArchived(d) && sameOwner(ownerOf(d.metadata), owner),
      );
      return found ? deploymentFromWire(found) : undefined;
    },
  };
}
