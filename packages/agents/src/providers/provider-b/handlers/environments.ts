// provider_b environments on either API domain. Update sends the complete config and tombstones
// dropped user metadata keys; a delete refused because Sessions still use it names them.
import { isConflict } from "../../common/errors.js";
import { removeTolerant, send, type Wire } from "../../common/handler-kit.js";
import { logicalName, metadataPatch, ownerOf, withOwnership } from "../../common/ownership.js";
import { collect, walkAfterId, walkPages } from "../../common/paging.js";
import { type HttpClient, ProviderHttpError } from "../../http.js";
import type { HandlerContext, KindHandler, RemoteObject, Spec } from "../../types.js";
import { UnforeseeableError } from "../../unforeseeable.js";
import type { ApiDomain } from "../client.js";
import { listEnvironments } from "../listing.js";
import {
  type EnvironmentDecl,
  environmentDesired,
  environmentFromWire,
  environmentToWire,
} from "../mappers/environment.js";
import { bothDomainsKind, client, findOwnedIn, requireOneDomain, specDomain } from "./shared.js";

function toRemote(ctx: HandlerContext, wire: Wire, domain: ApiDomain): RemoteObject {
  return {
    id: String(wire.id),
    spec: { ...environmentFromWire(wire, logicalName(ctx.owner), domain), derived: { domain } },
    owner: ownerOf(wire.metadata),
    extra: { domain },
  };
}

const kind = bothDomainsKind("/environments");

export const environmentHandler: KindHandler = {
  list: listEnvironments,
  replaceOn: ["derived.domain", "config.type"],
  desired(spec) {
    const domain = requireOneDomain(spec, "environment");
    return { ...environmentDesired(spec as EnvironmentDecl, domain), derived: { domain } };
  },
  async create(ctx, spec) {
    const domain = requireOneDomain(spec, logicalName(ctx.owner));
    const http = client(ctx, domain);
    const decl = spec as EnvironmentDecl;
    const body = environmentToWire(
      decl,
      logicalName(ctx.owner),
      withOwnership(decl.metadata, ctx.owner),
      domain,
    );
    try {
      return toRemote(
        ctx,
        await send(ctx, http, { method: "POST", path: "/environments", json: body }),
        domain,
      );
    } catch (error) {
      if (!isConflict(error)) throw error;
      const mine = await findOwnedIn(ctx, http, "/environments", ctx.owner);
      if (!mine) throw error;
      return toRemote(
        ctx,
        await send(ctx, http, { method: "POST", path: `/environments/${mine.id}`, json: body }),
        domain,
      );
    }
  },
  ...kind.listReader(),
  async read(ctx, id, prior, listed) {
    // An external environment (verified, never created: no domain in `extra`) may live on either
    // API whatever its users' delivery: the domain its spec names first, then the other one.
    const external = prior !== undefined && prior.extra?.domain === undefined;
    const domain = specDomain(prior?.spec);
    const found = await kind.readLive(ctx, listed, id, domain, external);
    if (found === "gone") return "gone";
    return toRemote(ctx, found.wire, found.domain);
  },
  async update(ctx, id, spec) {
    const domain = requireOneDomain(spec, logicalName(ctx.owner));
    const http = client(ctx, domain);
    const decl = spec as EnvironmentDecl;
    const current = await send(ctx, http, { method: "GET", path: `/environments/${id}` });
    const metadata = {
      ...withOwnership({}, ctx.owner),
      ...metadataPatch(current.metadata, decl.metadata ?? {}),
    };
    const body = environmentToWire(decl, logicalName(ctx.owner), metadata, domain);
    return toRemote(
      ctx,
      await send(ctx, http, { method: "POST", path: `/environments/${id}`, json: body }),
      domain,
    );
  },
  async remove(ctx, id, prior) {
    const domain = specDomain(prior?.spec) ?? "managed";
    const http = client(ctx, domain);
    try {
      await removeTolerant(http, "DELETE", `/environments/${id}`, ctx.signal);
      return;
    } catch (error) {
      if (!(error instanceof ProviderHttpError && error.status === 409)) throw error;
      const sessions = await sessionsUsing(ctx, http, domain, id);
      if (!ctx.cascade || sessions.length === 0) {
        const which = sessions.length ? ` (${sessions.map((s) => s.id).join(", ")})` : "";
        const fix = sessions.length
          ? "end them, or run agents destroy --cascade to archive them first"
          : "end whatever still uses it and run destroy again";
        throw new UnforeseeableError(
          "remote",
          `environment ${id} is still used by ${sessions.length} session(s)${which}; ${fix}`,
        );
      }
      // Archived, not deleted: the sessions stop holding the environment, their transcripts stay.
      for (const s of sessions)
        await removeTolerant(http, "POST", `/sessions/${String(s.id)}/archive`, ctx.signal);
      ctx.warn(
        `--cascade: archived ${sessions.length} session(s) that still used environment ${id}: ${sessions.map((s) => s.id).join(", ")}`,
      );
    }
    await removeTolerant(http, "DELETE", `/environments/${id}`, ctx.signal);
  },
  findOwned: kind.ownedFinder(toRemote),
};

/** Live sessions of the environment's API domain that run in it (Forward ones through their Template). */
async function sessionsUsing(ctx: HandlerContext, http: HttpClient, domain: ApiDomain, envId: string) {
  // Managed session lists page with `page`/`next_page`; Forward ones with `after_id`.
  const pages =
    domain === "managed"
      ? walkPages<Wire>(http, "/sessions", {}, ctx.signal)
      : walkAfterId<Wire>(http, "/sessions", {}, ctx.signal);
  return (await collect(pages)).filter(
    (s) =>
      !s.archived_at &&
      (s.environment_id === envId || (s.template as Wire | undefined)?.environment_id === envId),
  );
}

export type { Spec };
