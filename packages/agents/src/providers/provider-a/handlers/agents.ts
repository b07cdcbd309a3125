// provider_a agents: versioned (update sends the current version), archived on removal, adopted
// by name after a conflict when the existing agent is ours.
import { isConflict } from "../../common/errors.js";
import { isArchived, listedOrGone, removeTolerant, send, type Wire } from "../../common/handler-kit.js";
import { listedOwnerOf, logicalName, ownerOf, sameOwner, withOwnership } from "../../common/ownership.js";
import { collect, firstMatch, pageListReader, walkPages } from "../../common/paging.js";
import { rosterObserved, withRoster } from "../../common/roster.js";
import type { HandlerContext, KindHandler, PriorState, RemoteObject, Spec } from "../../types.js";
import {
  type AgentDecl,
  agentDesired,
  agentFromWire,
  agentToWire,
  type ResolvedSkillRef,
} from "../mappers/agent.js";
import { rosterFromWire } from "../wire-decisions.js";
import { pickSkillVersion } from "./skills.js";

function toRemote(ctx: HandlerContext, wire: Wire, declared?: Spec): RemoteObject {
  const roster = rosterFromWire(wire.multiagent);
  return {
    id: String(wire.id),
    // The remote name is always shown: plan compares it with the name apply sends (desired).
    spec: withRoster(
      { ...agentFromWire(wire, logicalName(ctx.owner)), name: wire.name },
      rosterObserved(ctx, roster, declared),
    ),
    owner: ownerOf(wire.metadata),
    version: typeof wire.version === "number" || typeof wire.version === "string" ? wire.version : undefined,
    ...(roster ? { extra: { roster } } : {}),
  };
}

async function resolveSkills(ctx: HandlerContext, decl: AgentDecl): Promise<ResolvedSkillRef[]> {
  const out: ResolvedSkillRef[] = [];
  for (const ref of decl.skills ?? []) {
    if (typeof ref === "string") {
      const id = ctx.resolve("skills", ref);
      const recorded = ctx.resolveExtra("skills", ref)?.version;
      out.push({
        type: "customer",
        skill_id: id,
        version: await pickSkillVersion(ctx, id, recorded as string | undefined),
      });
    } else {
      const type = ref.type === "official" ? "official" : "customer";
      // Official catalog skills have no versions list to pick from: without an explicit version
      // the reference goes out without one and the provider uses its current catalog version.
      if (type === "official") {
        out.push({ type, skill_id: ref.skill_id, ...(ref.version ? { version: ref.version } : {}) });
        continue;
      }
      const version = await pickSkillVersion(ctx, ref.skill_id, ref.version);
      out.push({ type, skill_id: ref.skill_id, version });
    }
  }
  return out;
}

function resolveRoster(ctx: HandlerContext, decl: AgentDecl): string[] | undefined {
  if (!decl.multiagent) return undefined;
  return decl.multiagent.agents.map((m) => (typeof m === "string" ? ctx.resolve("agents", m) : m.agent_id));
}

async function body(ctx: HandlerContext, spec: Spec, update: boolean) {
  const decl = spec as unknown as AgentDecl;
  return agentToWire(decl, {
    name: decl.name ?? logicalName(ctx.owner),
    metadata: withOwnership(decl.metadata, ctx.owner),
    skills: await resolveSkills(ctx, decl),
    roster: resolveRoster(ctx, decl),
    clearRoster: update,
    warn: (m) => ctx.warn(m),
  });
}

async function updateAgent(
  ctx: HandlerContext,
  id: string,
  payload: Record<string, unknown>,
  spec: Spec,
): Promise<RemoteObject> {
  const current = await send(ctx, ctx.http, { method: "GET", path: `/agents/${id}` });
  const updated = await send(ctx, ctx.http, {
    method: "POST",
    path: `/agents/${id}`,
    json: { ...payload, version: current.version },
  });
  return toRemote(ctx, updated, spec);
}

export const agentHandler: KindHandler = {
  // An agent pins the version of each custom skill it references: a new skill version (an edited
  // SKILL.md) must be followed by an agent update, or the agent keeps running the old one.
  followsUpdatesOf: ["skills"],
  // Git tokens are secrets: kept in state only as keyed hashes (provider_a drops session resources today).
  sensitive: ["resources.*.authorization_token"],
  // The name apply sends (`name`, else the logical key), when plan gives the key: a renamed key
  // (`agents state mv`) plans the remote rename.
  desired: (spec, { name }) => {
    const out = agentDesired(spec as unknown as AgentDecl);
    return name !== undefined && out.name === undefined ? { ...out, name } : out;
  },
  async create(ctx, spec) {
    const payload = await body(ctx, spec, false);
    try {
      return toRemote(
        ctx,
        await send(ctx, ctx.http, { method: "POST", path: "/agents", json: payload }),
        spec,
      );
    } catch (error) {
      if (!isConflict(error)) throw error;
      const existing = await firstMatch(
        walkPages<Wire>(ctx.http, "/agents", {}, ctx.signal),
        (a) => a.name === payload.name && !isArchived(a),
      );
      if (!existing || !sameOwner(ownerOf(existing.metadata), ctx.owner)) throw error;
      return updateAgent(ctx, String(existing.id), await body(ctx, spec, true), spec);
    }
  },
  ...pageListReader("/agents"),
  async read(ctx, id, prior, listed) {
    const wire = await listedOrGone(ctx.http, listed, `/agents/${id}`, ctx.signal);
    if (wire === "gone" || isArchived(wire)) return "gone";
    return toRemote(ctx, wire, prior?.spec);
  },
  async update(ctx, id, spec, _prior: PriorState) {
    return updateAgent(ctx, id, await body(ctx, spec, true), spec);
  },
  async remove(ctx, id) {
    await removeTolerant(ctx.http, "POST", `/agents/${id}/archive`, ctx.signal);
  },
  async findOwned(ctx, owner) {
    const found = await firstMatch(
      walkPages<Wire>(ctx.http, "/agents", {}, ctx.signal),
      (a) => !isArchived(a) && sameOwner(ownerOf(a.metadata), owner),
    );
    return found ? toRemote(ctx, found) : undefined;
  },
  // The walker findOwned uses, over the whole account with archived agents (sync refuses an
  // archived roster member). The roster, which drift leaves to the engine's refs, is shown here
  // as `{agent_id}` members so sync can map them back to logical names.
  async list(ctx) {
    const all = await collect(walkPages<Wire>(ctx.http, "/agents", { include_archived: true }, ctx.signal));
    return all.map((wire) => {
      const owner = listedOwnerOf(wire.metadata);
      const logical = owner?.resource ? logicalName(owner) : String(wire.name ?? "");
      const roster = rosterFromWire(wire.multiagent);
      return {
        id: String(wire.id),
        spec: {
          ...agentFromWire(wire, logical),
          ...(roster
            ? { multiagent: { type: "coordinator", agents: roster.map((id) => ({ agent_id: id })) } }
            : {}),
        },
        ...(owner ? { owner } : {}),
        archived: isArchived(wire),
      };
    });
  },
};
