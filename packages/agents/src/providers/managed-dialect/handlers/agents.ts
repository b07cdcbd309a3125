// Agents: versioned objects. Update carries the current `version` (optimistic lock; a stale
// version is re-read and retried); removal archives (provider_c) or deletes (provider_d).

import { logicalNameOf } from "../../../model/address.js";
import { metadataPatch, ownerOf, withOwnership } from "../../common/ownership.js";
import type { HandlerContext, KindHandler, ListContext, RemoteObject, Spec } from "../../types.js";
import { UnforeseeableError } from "../../unforeseeable.js";
import { agentFromWire, agentReverseRefs, agentToWire, canonicalAgent, sessionDefaults } from "../agent.js";
import { METADATA_LIMITS } from "../ownership.js";
import type { DialectProfile } from "../profile.js";
import {
  dialectKind,
  getOrGone,
  idOf,
  ignoreGone,
  isArchived,
  isStatus,
  overlay,
  withListedOwner,
} from "../remote.js";
import type { Json } from "../spec.js";

const COMPARED = [
  "description",
  "model",
  "instructions",
  "tools",
  "mcp_servers",
  "skills",
  "multiagent",
  "metadata",
] as const;

export function agentHandler(profile: DialectProfile): KindHandler {
  const dialect = profile.agent;
  const kind = dialectKind(profile, "/agents");

  const toRemote = (
    ctx: Pick<HandlerContext, "resolve" | "resolveExtra"> | ListContext,
    remote: Json,
    declared: Json | undefined,
    session?: Json,
    named = true,
  ): RemoteObject => {
    const owner = ownerOf(remote.metadata);
    const version = remote.version;
    const spec = agentFromWire(
      remote,
      dialect,
      declared && "resolve" in ctx ? agentReverseRefs(declared, ctx) : new Map(),
    );
    // The remote name is the logical key: plan compares it (a renamed key renames the agent), sync's
    // listing leaves it out (agents.yaml has no name field to write it to).
    if (named && typeof remote.name === "string") spec.name = remote.name;
    return {
      id: idOf(remote),
      spec,
      ...(owner ? { owner } : {}),
      archived: isArchived(remote),
      ...(typeof version === "number" || typeof version === "string" ? { version } : {}),
      ...(session ? { extra: { session } } : {}),
    };
  };

  const body = (ctx: HandlerContext, spec: Spec) => {
    const metadata = withOwnership(spec.metadata, ctx.owner, METADATA_LIMITS);
    const wire = agentToWire(spec, logicalNameOf(ctx.owner.resource), metadata, dialect, ctx, ctx.warn);
    return { wire, session: sessionDefaults(spec, dialect, ctx, ctx.warn), metadata };
  };

  const findOwned = kind.ownedFinder((ctx, hit) => toRemote(ctx, hit, undefined));

  // Same walker as findOwned, over the whole account; archived agents are asked for where the
  // provider archives (sync must see an archived roster member to refuse it).
  async function list(ctx: ListContext): Promise<RemoteObject[]> {
    const query = profile.agentRemoval === "archive" ? { include_archived: true } : undefined;
    return (await kind.listAll(ctx, query)).map((remote) =>
      withListedOwner(toRemote(ctx, remote, undefined, undefined, false), remote.metadata),
    );
  }

  return {
    // The config loader has already replaced an instructions path with the file's text.
    // The remote name is always the logical key (see body): compared when plan gives it.
    desired: (spec, { name }) => {
      const out = overlay(spec, canonicalAgent(spec, dialect.provider), COMPARED);
      return name !== undefined ? { ...out, name } : out;
    },
    // Session repositories may carry a token in the declaration; the engine masks and hashes it.
    sensitive: ["resources.*.authorization_token"],

    async create(ctx, spec) {
      const { wire, session } = body(ctx, spec);
      if (wire.multiagent === null) delete wire.multiagent;
      const response = await ctx.http.request<Json>({
        method: "POST",
        path: "/agents",
        json: wire,
        signal: ctx.signal,
      });
      return toRemote(ctx, response.body, spec, session);
    },

    ...kind.listReader(),

    async read(ctx, id, prior, listed) {
      const remote = await kind.readLive(ctx, listed, id);
      if (remote === "gone") return "gone";
      return toRemote(ctx, remote, prior?.spec, prior?.extra?.session as Json | undefined);
    },

    async update(ctx, id, spec) {
      const { wire, session, metadata } = body(ctx, spec);
      for (let attempt = 0; ; attempt++) {
        const current = await getOrGone(ctx.http, { path: `/agents/${id}`, signal: ctx.signal });
        if (current === "gone")
          throw new UnforeseeableError(
            "remote",
            `agent ${id} is gone; it will be created again on the next apply`,
          );
        const json = {
          ...wire,
          version: current.version,
          metadata: profile.metadataUpdate === "patch" ? metadataPatch(current.metadata, metadata) : metadata,
        };
        try {
          const response = await ctx.http.request<Json>({
            method: "POST",
            path: `/agents/${id}`,
            json,
            signal: ctx.signal,
          });
          return toRemote(ctx, response.body, spec, session);
        } catch (error) {
          // Someone saved the agent between our read and write: re-read the version and retry.
          if (isStatus(error, 409) && attempt < profile.agentVersionRetries) continue;
          throw error;
        }
      }
    },

    async remove(ctx, id) {
      if (profile.agentRemoval === "delete") {
        await kind.remove(ctx, id);
        return;
      }
      try {
        await ignoreGone(() =>
          ctx.http.request({ method: "POST", path: `/agents/${id}/archive`, json: {}, signal: ctx.signal }),
        );
      } catch (error) {
        // Archiving an archived agent may be refused; it is as removed as it gets.
        const current = await getOrGone(ctx.http, { path: `/agents/${id}`, signal: ctx.signal });
        if (current === "gone" || isArchived(current)) return;
        throw error;
      }
    },

    findOwned,
    list,
  };
}
