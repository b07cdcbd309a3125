// Environments on the Managed-Agents dialect. Naming is the one difference between providers
// (provider_d normalizes names and retries a taken name with a suffix), passed in as data.

import { logicalNameOf } from "../../../model/address.js";
import { str } from "../../common/handler-kit.js";
import { listedOwnerOf, metadataPatch, ownerOf, withOwnership } from "../../common/ownership.js";
import { listAll, listReader } from "../../common/paging.js";
import type {
  HandlerContext,
  KindHandler,
  ListContext,
  PriorState,
  RemoteObject,
  Spec,
} from "../../types.js";
import { UnforeseeableError } from "../../unforeseeable.js";
import { canonicalEnvironment, environmentFromWire, environmentToWire } from "../environment.js";
import { METADATA_LIMITS } from "../ownership.js";
import type { DialectProfile } from "../profile.js";
import { getOrGone, idOf, ignoreGone, isArchived, listedOrGet, overlay, ownedFinder } from "../remote.js";
import type { Json } from "../spec.js";

export interface EnvironmentNaming {
  /** Names to try on create, in order (provider_d: base, base-1, base-2, …). */
  attempts(spec: Json, logicalName: string): string[];
  /** The name update sends, given the name the remote object has now (from the last apply). */
  updateName(spec: Json, logicalName: string, currentName: string | undefined): string;
  /** True when a remote name is what the adapter would have chosen for the declared name (not drift). */
  isDefault(remoteName: string, logicalName: string, declaredName: string | undefined): boolean;
}

const COMPARED = ["name", "description", "config", "metadata"] as const;

export function environmentHandler(profile: DialectProfile, naming: EnvironmentNaming): KindHandler {
  const toRemote = (remote: Json, logicalName: string, declared?: Json): RemoteObject => {
    const owner = ownerOf(remote.metadata);
    const declaredName = declared ? str(declared.name) : undefined;
    return {
      id: idOf(remote),
      spec: environmentFromWire(remote, (n) => naming.isDefault(n, logicalName, declaredName)),
      ...(owner ? { owner } : {}),
      archived: isArchived(remote),
      extra: { name: str(remote.name) },
    };
  };

  const findOwned = ownedFinder("/environments", profile.pageSize, (_ctx, hit, owner) =>
    toRemote(hit, logicalNameOf(owner.resource)),
  );

  // The walker findOwned uses, over the whole account; archived environments are left out.
  async function list(ctx: ListContext): Promise<RemoteObject[]> {
    const all = await listAll<Json>(ctx.http, "/environments", {
      pageSize: profile.pageSize,
      signal: ctx.signal,
    });
    return all
      .filter((e) => !isArchived(e))
      .map((remote) => {
        const owner = listedOwnerOf(remote.metadata);
        const logical = owner?.resource ? logicalNameOf(owner.resource) : (str(remote.name) ?? "");
        const listed = toRemote(remote, logical);
        return owner ? { ...listed, owner } : listed;
      });
  }

  return {
    desired: (spec) => overlay(spec, canonicalEnvironment(spec), COMPARED),

    async create(ctx: HandlerContext, spec: Spec): Promise<RemoteObject> {
      const logical = logicalNameOf(ctx.owner.resource);
      const metadata = withOwnership(spec.metadata, ctx.owner, METADATA_LIMITS);
      const names = naming.attempts(spec, logical);
      for (const [index, name] of names.entries()) {
        try {
          const response = await ctx.http.request<Json>({
            method: "POST",
            path: "/environments",
            json: environmentToWire(spec, name, metadata),
            signal: ctx.signal,
          });
          return toRemote(response.body, logical, spec);
        } catch (error) {
          if (!(error as { conflict?: boolean }).conflict) throw error;
          // A conflict may be our own earlier create (crash before the state write): adopt it.
          const mine = await findOwned(ctx, ctx.owner);
          if (mine) {
            ctx.warn(`adopted existing environment ${mine.id} created earlier by this project`);
            return mine;
          }
          // Every name tried is taken by objects this project does not own: the last conflict says so.
          if (index === names.length - 1) throw error;
          ctx.warn(`environment name "${name}" is taken; trying the next suffix`);
        }
      }
      throw new UnforeseeableError("internal", "environment create: no name to try");
    },

    ...listReader(profile, "/environments"),

    async read(ctx: HandlerContext, id: string, prior?: PriorState, listed?: unknown) {
      const remote = await listedOrGet(ctx.http, listed, { path: `/environments/${id}`, signal: ctx.signal });
      if (remote === "gone" || isArchived(remote)) return "gone";
      return toRemote(remote, logicalNameOf(ctx.owner.resource), prior?.spec);
    },

    async update(ctx: HandlerContext, id: string, spec: Spec, prior: PriorState): Promise<RemoteObject> {
      const logical = logicalNameOf(ctx.owner.resource);
      const declared = withOwnership(spec.metadata, ctx.owner, METADATA_LIMITS);
      let metadata: Record<string, string | null> = declared;
      if (profile.metadataUpdate === "patch") {
        const current = await getOrGone(ctx.http, { path: `/environments/${id}`, signal: ctx.signal });
        if (current !== "gone") metadata = metadataPatch(current.metadata, declared);
      }
      const response = await ctx.http.request<Json>({
        method: "POST",
        path: `/environments/${id}`,
        json: {
          ...environmentToWire(spec, naming.updateName(spec, logical, str(prior?.extra?.name)), declared),
          metadata,
        },
        signal: ctx.signal,
      });
      return toRemote(response.body, logical, spec);
    },

    async remove(ctx: HandlerContext, id: string): Promise<void> {
      await ignoreGone(() =>
        ctx.http.request({ method: "DELETE", path: `/environments/${id}`, signal: ctx.signal }),
      );
    },

    findOwned,
    list,
  };
}
