// Environments on the Managed-Agents dialect. Naming is the one difference between providers
// (provider_d normalizes names and retries a taken name with a suffix), passed in as data.

import { logicalNameOf } from "../../../model/address.js";
import { str } from "../../common/handler-kit.js";
import { ownerOf, withOwnership } from "../../common/ownership.js";
import type { KindHandler, ListContext, RemoteObject } from "../../types.js";
import { UnforeseeableError } from "../../unforeseeable.js";
import { canonicalEnvironment, environmentFromWire, environmentToWire } from "../environment.js";
import { METADATA_LIMITS } from "../ownership.js";
import type { DialectProfile } from "../profile.js";
import { dialectKind, idOf, isArchived, overlay, withListedOwner } from "../remote.js";
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
  const kind = dialectKind(profile, "/environments");
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

  const findOwned = kind.ownedFinder((_ctx, hit, owner) => toRemote(hit, logicalNameOf(owner.resource)));

  // The walker findOwned uses, over the whole account; archived environments are left out.
  async function list(ctx: ListContext): Promise<RemoteObject[]> {
    return (await kind.listAll(ctx))
      .filter((e) => !isArchived(e))
      .map((remote) => {
        const resource = ownerOf(remote.metadata)?.resource;
        const logical = resource ? logicalNameOf(resource) : (str(remote.name) ?? "");
        return withListedOwner(toRemote(remote, logical), remote.metadata);
      });
  }

  return {
    desired: (spec) => overlay(spec, canonicalEnvironment(spec), COMPARED),

    async create(ctx, spec) {
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

    ...kind.listReader(),

    async read(ctx, id, prior, listed) {
      const remote = await kind.readLive(ctx, listed, id);
      if (remote === "gone") return "gone";
      return toRemote(remote, logicalNameOf(ctx.owner.resource), prior?.spec);
    },

    async update(ctx, id, spec, prior) {
      const logical = logicalNameOf(ctx.owner.resource);
      const { declared, metadata } = await kind.metadataForUpdate(ctx, id, spec.metadata);
      const response = await ctx.http.request<Json>({
        method: "POST",
        path: kind.path(id),
        json: {
          ...environmentToWire(spec, naming.updateName(spec, logical, str(prior?.extra?.name)), declared),
          metadata,
        },
        signal: ctx.signal,
      });
      return toRemote(response.body, logical, spec);
    },

    async remove(ctx, id) {
      await kind.remove(ctx, id);
    },

    findOwned,
    list,
  };
}
