// provider_b Identities (Forward API). Managed form: created/updated/deleted, stamped with the
// ownership keys in their metadata (the user's keys stay theirs), and adopted by external_id only
// when the existing identity carries this resource's ownership. External form (`identity_id`):
// only verified, never updated or deleted.
import { isConflict } from "../../common/errors.js";
import { getOrGone, isArchived, removeTolerant, send, type Wire } from "../../common/handler-kit.js";
import { logicalName, ownerOf, sameOwner, withOwnership } from "../../common/ownership.js";
import { firstMatch, walkAfterId } from "../../common/paging.js";
import type { HandlerContext, KindHandler, RemoteObject, Spec } from "../../types.js";
import { listIdentities } from "../listing.js";
import { type IdentityDecl, identityDesired, identityFromWire, identityToWire } from "../mappers/forward.js";
import { client, forwardListReader, listedOn } from "./shared.js";

function toRemote(ctx: HandlerContext, wire: Wire): RemoteObject {
  return {
    id: String(wire.id),
    spec: identityFromWire(wire, logicalName(ctx.owner)),
    owner: ownerOf(wire.metadata),
  };
}

/** The wire body, ownership keys added (user keys win, as everywhere). */
function identityBody(ctx: HandlerContext, spec: Spec, remoteMetadata?: unknown): Record<string, unknown> {
  const body = identityToWire(spec as IdentityDecl, logicalName(ctx.owner), remoteMetadata);
  return { ...body, metadata: withOwnership(body.metadata, ctx.owner) };
}

async function byExternalId(ctx: HandlerContext, externalId: string): Promise<Wire | undefined> {
  const res = await send<{ data?: Wire[] }>(ctx, client(ctx, "forward"), {
    method: "GET",
    path: "/identities",
    query: { external_id: externalId, limit: 100 },
  });
  return (res?.data ?? []).find((i) => i.external_id === externalId);
}

export const identityHandler: KindHandler = {
  list: listIdentities,
  replaceOn: ["external_id"],
  desired: (spec) => identityDesired(spec as IdentityDecl),
  async create(ctx, spec) {
    const forward = client(ctx, "forward");
    const payload = identityBody(ctx, spec);
    try {
      return toRemote(ctx, await send(ctx, forward, { method: "POST", path: "/identities", json: payload }));
    } catch (error) {
      // The external id is taken: adopted only when it is this resource's own identity (a create
      // whose answer was lost); anyone else's is reported by the engine with the import hint.
      const existing = isConflict(error) ? await byExternalId(ctx, payload.external_id as string) : undefined;
      if (!existing || !sameOwner(ownerOf(existing.metadata), ctx.owner)) throw error;
      const body = identityBody(ctx, spec, existing.metadata);
      return toRemote(
        ctx,
        await send(ctx, forward, { method: "POST", path: `/identities/${existing.id}`, json: body }),
      );
    }
  },
  ...forwardListReader("/identities"),
  async read(ctx, id, _prior, listed) {
    const wire =
      (await listedOn(listed, "forward"))?.wire ??
      (await getOrGone(client(ctx, "forward"), `/identities/${id}`, ctx.signal));
    return wire === "gone" ? "gone" : toRemote(ctx, wire);
  },
  async update(ctx, id, spec) {
    const forward = client(ctx, "forward");
    const current = await send(ctx, forward, { method: "GET", path: `/identities/${id}` });
    const body = identityBody(ctx, spec, current.metadata);
    return toRemote(ctx, await send(ctx, forward, { method: "POST", path: `/identities/${id}`, json: body }));
  },
  async remove(ctx, id) {
    await removeTolerant(client(ctx, "forward"), "DELETE", `/identities/${id}`, ctx.signal);
  },
  async findOwned(ctx, owner, exclude) {
    const found = await firstMatch(
      walkAfterId<Wire>(client(ctx, "forward"), "/identities", { limit: 100 }, ctx.signal),
      (i) => !isArchived(i) && !exclude?.has(String(i.id)) && sameOwner(ownerOf(i.metadata), owner),
    );
    return found ? toRemote(ctx, found) : undefined;
  },
};
