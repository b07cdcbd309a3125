// provider_b Identities (Forward API). Managed form: created/updated/deleted, adopted by
// external_id. External form (`identity_id`): only verified, never updated or deleted.
import { isConflict } from "../../common/errors.js";
import { getOrGone, removeTolerant, send, type Wire } from "../../common/handler-kit.js";
import { logicalName } from "../../common/ownership.js";
import type { HandlerContext, KindHandler, RemoteObject } from "../../types.js";
import { listIdentities } from "../listing.js";
import { type IdentityDecl, identityDesired, identityFromWire, identityToWire } from "../mappers/forward.js";
import { client } from "./shared.js";

function toRemote(ctx: HandlerContext, wire: Wire): RemoteObject {
  return { id: String(wire.id), spec: identityFromWire(wire, logicalName(ctx.owner)) };
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
    const decl = spec as IdentityDecl;
    const forward = client(ctx, "forward");
    const payload = identityToWire(decl, logicalName(ctx.owner));
    try {
      return toRemote(ctx, await send(ctx, forward, { method: "POST", path: "/identities", json: payload }));
    } catch (error) {
      // The external id is the integrating product's stable key: an existing one is that same user.
      const existing = isConflict(error) ? await byExternalId(ctx, payload.external_id as string) : undefined;
      if (!existing) throw error;
      const body = identityToWire(decl, logicalName(ctx.owner), existing.metadata);
      return toRemote(
        ctx,
        await send(ctx, forward, { method: "POST", path: `/identities/${existing.id}`, json: body }),
      );
    }
  },
  async read(ctx, id) {
    const wire = await getOrGone(client(ctx, "forward"), `/identities/${id}`, ctx.signal);
    return wire === "gone" ? "gone" : toRemote(ctx, wire);
  },
  async update(ctx, id, spec) {
    const forward = client(ctx, "forward");
    const current = await send(ctx, forward, { method: "GET", path: `/identities/${id}` });
    const body = identityToWire(spec as IdentityDecl, logicalName(ctx.owner), current.metadata);
    return toRemote(ctx, await send(ctx, forward, { method: "POST", path: `/identities/${id}`, json: body }));
  },
  async remove(ctx, id) {
    await removeTolerant(client(ctx, "forward"), "DELETE", `/identities/${id}`, ctx.signal);
  },
};
