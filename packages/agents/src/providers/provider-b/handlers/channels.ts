// provider_b Channels (Forward API): `fixed` binds one Identity and Template, `pairing` is
// transport only. Type or mode changes replace the channel (update omits both on the wire).
import { getOrGone, removeTolerant, send, type Wire } from "../../common/handler-kit.js";
import { logicalName } from "../../common/ownership.js";
import { firstMatch, walkAfterId } from "../../common/paging.js";
import type { HandlerContext, KindHandler, RemoteObject, Spec } from "../../types.js";
import { derivedOf } from "../derive.js";
import { listChannels } from "../listing.js";
import { type ChannelDecl, channelDesired, channelFromWire, channelToWire } from "../mappers/forward.js";
import { client, forwardListReader, listedOn } from "./shared.js";

function toRemote(ctx: HandlerContext, wire: Wire): RemoteObject {
  return { id: String(wire.id), spec: channelFromWire(wire, logicalName(ctx.owner)) };
}

function body(ctx: HandlerContext, spec: Spec, update: boolean) {
  const decl = spec as unknown as ChannelDecl;
  const fixed = (decl.mode ?? "fixed") === "fixed";
  const identity = decl.identity ?? derivedOf(spec).identity;
  const payload = channelToWire(decl, {
    name: logicalName(ctx.owner),
    identityId: fixed && identity ? ctx.resolve("identities", identity) : undefined,
    templateId: fixed && decl.agent ? ctx.resolve("agents", decl.agent) : undefined,
    update,
  });
  const credentials = (payload.channel_config as { credentials?: Record<string, string> }).credentials ?? {};
  for (const value of Object.values(credentials)) ctx.http.addSecret(value);
  for (const value of Object.values(credentials)) client(ctx, "forward").addSecret(value);
  return payload;
}

export const channelHandler: KindHandler = {
  list: listChannels,
  replaceOn: ["type", "mode"],
  sensitive: ["credentials.*"],
  desired: (spec) => channelDesired(spec as unknown as ChannelDecl),
  async create(ctx, spec) {
    const forward = client(ctx, "forward");
    return toRemote(
      ctx,
      await send(ctx, forward, { method: "POST", path: "/channels", json: body(ctx, spec, false) }),
    );
  },
  // Channels carry no metadata: a name conflict is adopted by the engine only after a journaled
  // create of this address that never recorded its answer (see KindHandler.findNamed).
  async findNamed(ctx, spec) {
    const type = (spec as unknown as ChannelDecl).type;
    const found = await firstMatch(
      walkAfterId<Wire>(client(ctx, "forward"), "/channels", {}, ctx.signal),
      (c) => c.name === logicalName(ctx.owner) && c.channel_type === type,
    );
    return found ? toRemote(ctx, found) : undefined;
  },
  ...forwardListReader("/channels"),
  async read(ctx, id, _prior, listed) {
    const wire =
      (await listedOn(listed, "forward"))?.wire ??
      (await getOrGone(client(ctx, "forward"), `/channels/${id}`, ctx.signal));
    return wire === "gone" ? "gone" : toRemote(ctx, wire);
  },
  async update(ctx, id, spec) {
    const forward = client(ctx, "forward");
    const updated = await send(ctx, forward, {
      method: "POST",
      path: `/channels/${id}`,
      json: body(ctx, spec, true),
    });
    return toRemote(ctx, { ...updated, id });
  },
  async remove(ctx, id) {
    await removeTolerant(client(ctx, "forward"), "DELETE", `/channels/${id}`, ctx.signal);
  },
};
