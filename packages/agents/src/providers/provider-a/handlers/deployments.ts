// provider_a native deployments: created, updated in place (full replacement of lists, explicit
// clears), archived on removal. Local `source` files of resources are uploaded and audited first.
import { getOrGone, isArchived, removeTolerant, send, type Wire } from "../../common/handler-kit.js";
import { logicalName, ownerOf, sameOwner, userMetadata, withOwnership } from "../../common/ownership.js";
import { findFirst, walkPages } from "../../common/paging.js";
import type { HandlerContext, KindHandler, RemoteObject, Spec } from "../../types.js";
import { type DeploymentDecl, deploymentToWire } from "../mappers/deployment.js";
import { uploadFile } from "./files.js";
import type { ProviderAOptions } from "./options.js";

function toRemote(wire: Wire): RemoteObject {
  const schedule = wire.schedule as { expression?: string; timezone?: string } | null | undefined;
  return {
    id: String(wire.id),
    spec: {
      ...(schedule?.expression
        ? { schedule: { expression: schedule.expression, timezone: schedule.timezone } }
        : {}),
      ...(typeof wire.description === "string" && wire.description ? { description: wire.description } : {}),
      metadata: userMetadata(wire.metadata),
    },
    owner: ownerOf(wire.metadata),
    extra: { status: wire.status },
  };
}

export function createDeploymentHandler(opts: ProviderAOptions): KindHandler {
  async function body(ctx: HandlerContext, spec: Spec, update: boolean) {
    const decl = spec as unknown as DeploymentDecl;
    const fileIds: (string | undefined)[] = [];
    for (const resource of decl.resources ?? []) {
      if (resource.type !== "file") fileIds.push(undefined);
      else if (resource.file_id) fileIds.push(resource.file_id);
      else if (resource.source) fileIds.push(String((await uploadFile(ctx, opts, resource.source)).id));
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
    desired(spec) {
      const decl = spec as unknown as DeploymentDecl;
      return {
        ...spec,
        ...(decl.schedule ? { schedule: decl.schedule } : {}),
        metadata: { ...(decl.metadata ?? {}) },
      };
    },
    async create(ctx, spec) {
      return toRemote(
        await send(ctx, ctx.http, {
          method: "POST",
          path: "/deployments",
          json: await body(ctx, spec, false),
        }),
      );
    },
    async read(ctx, id) {
      const wire = await getOrGone(ctx.http, `/deployments/${id}`, ctx.signal);
      if (wire === "gone" || isArchived(wire)) return "gone";
      return toRemote(wire);
    },
    async update(ctx, id, spec) {
      return toRemote(
        await send(ctx, ctx.http, {
          method: "POST",
          path: `/deployments/${id}`,
          json: await body(ctx, spec, true),
        }),
      );
    },
    async remove(ctx, id) {
      await removeTolerant(ctx.http, "POST", `/deployments/${id}/archive`, ctx.signal);
    },
    async findOwned(ctx, owner) {
      const found = await findFirst(
        walkPages<Wire>(ctx.http, "/deployments", {}, ctx.signal),
        (d) => !isArchived(d) && sameOwner(ownerOf(d.metadata), owner),
      );
      return found ? toRemote(found) : undefined;
    },
  };
}
