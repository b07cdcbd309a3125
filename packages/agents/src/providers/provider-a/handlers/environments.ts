import { isConflict } from "../../common/errors.js";
import { isArchived, listedOrGone, removeTolerant, send, type Wire } from "../../common/handler-kit.js";
import { listedOwnerOf, logicalName, ownerOf, sameOwner, withOwnership } from "../../common/ownership.js";
import { collect, firstMatch, pageListReader, walkPages } from "../../common/paging.js";
import type { HandlerContext, KindHandler, RemoteObject, Spec } from "../../types.js";
import {
  type EnvironmentDecl,
  environmentDesired,
  environmentFromWire,
  environmentToWire,
} from "../mappers/environment.js";

function toRemote(ctx: HandlerContext, wire: Wire): RemoteObject {
  return {
    id: String(wire.id),
    spec: environmentFromWire(wire, logicalName(ctx.owner)),
    owner: ownerOf(wire.metadata),
  };
}

function body(ctx: HandlerContext, spec: Spec) {
  const decl = spec as EnvironmentDecl;
  return environmentToWire(decl, logicalName(ctx.owner), withOwnership(decl.metadata, ctx.owner));
}

export const environmentHandler: KindHandler = {
  desired: (spec) => environmentDesired(spec as EnvironmentDecl),
  async create(ctx, spec) {
    const payload = body(ctx, spec);
    try {
      return toRemote(
        ctx,
        await send(ctx, ctx.http, { method: "POST", path: "/environments", json: payload }),
      );
    } catch (error) {
      if (!isConflict(error)) throw error;
      // Name taken: adopt only our own environment, then bring it to the declared shape.
      const existing = await firstMatch(
        walkPages<Wire>(ctx.http, "/environments", {}, ctx.signal),
        (e) => e.name === payload.name,
      );
      if (!existing || !sameOwner(ownerOf(existing.metadata), ctx.owner)) throw error;
      const id = String(existing.id);
      return toRemote(
        ctx,
        await send(ctx, ctx.http, { method: "POST", path: `/environments/${id}`, json: payload }),
      );
    }
  },
  ...pageListReader("/environments"),
  async read(ctx, id, _prior, listed) {
    const wire = await listedOrGone(ctx.http, listed, `/environments/${id}`, ctx.signal);
    return wire === "gone" ? "gone" : toRemote(ctx, wire);
  },
  async update(ctx, id, spec) {
    return toRemote(
      ctx,
      await send(ctx, ctx.http, { method: "POST", path: `/environments/${id}`, json: body(ctx, spec) }),
    );
  },
  async remove(ctx, id) {
    await removeTolerant(ctx.http, "DELETE", `/environments/${id}`, ctx.signal);
  },
  async findOwned(ctx, owner) {
    const found = await firstMatch(walkPages<Wire>(ctx.http, "/environments", {}, ctx.signal), (e) =>
      sameOwner(ownerOf(e.metadata), owner),
    );
    return found ? toRemote(ctx, found) : undefined;
  }, // The walker findOwned uses, over the whole account with archived environments (sync must see
  // an archived project object as such, not as missing).
  async list(ctx) {
    const all = await collect(
      walkPages<Wire>(ctx.http, "/environments", { include_archived: true }, ctx.signal),
    );
    return all.map((wire) => {
      const owner = listedOwnerOf(wire.metadata);
      const logical = owner?.resource ? logicalName(owner) : String(wire.name ?? "");
      return {
        id: String(wire.id),
        spec: environmentFromWire(wire, logical),
        ...(owner ? { owner } : {}),
        archived: isArchived(wire),
      };
    });
  },
};
