// provider_b agents: Managed delivery → Managed Agent (PUT with the current version on update,
// DELETE on removal); Forward delivery → Forward Template (templates.ts). The delivery type is
// fixed for a resource's life: changing it replaces the resource.
import { isConflict } from "../../common/errors.js";
import { getOrGone, isArchived, removeTolerant, send, type Wire } from "../../common/handler-kit.js";
import { settleUploads } from "../../common/journaled-uploads.js";
import { readLocalFile } from "../../common/local-files.js";
import { logicalName, ownerOf, withOwnership } from "../../common/ownership.js";
import { rosterObserved, withRoster } from "../../common/roster.js";
import type { AgentHandler, HandlerContext, RemoteObject, Spec } from "../../types.js";
import { listAgents } from "../listing.js";
import {
  type AgentDecl,
  agentDesired,
  agentFromWire,
  isForward,
  managedAgentToWire,
  resolveSkillRef,
} from "../mappers/agent.js";
import { rosterIdsFromWire } from "../wire-decisions.js";
import { captureForDestroy } from "./default-store.js";
import { startManagedSession } from "./sessions.js";
import { afterIdListReader, client, findOwnedIn, listedOn } from "./shared.js";
import {
  createTemplate,
  forwardFiles,
  listForwardFiles,
  readTemplate,
  removeTemplate,
  toTemplateRemote,
  updateTemplate,
} from "./templates.js";

function toRemote(ctx: HandlerContext, wire: Wire, declared?: Spec): RemoteObject {
  const roster = rosterIdsFromWire(wire.multiagent);
  return {
    id: String(wire.id),
    spec: withRoster(
      // The remote name is always shown: plan compares it with the name apply sends (desired).
      { ...agentFromWire(wire, logicalName(ctx.owner), false), name: wire.name },
      rosterObserved(ctx, roster, declared),
    ),
    owner: ownerOf(wire.metadata),
    version: typeof wire.version === "number" || typeof wire.version === "string" ? wire.version : undefined,
    extra: { delivery: "managed", ...(roster ? { roster } : {}) },
  };
}

function managedBody(ctx: HandlerContext, spec: Spec, update: boolean) {
  const decl = spec as unknown as AgentDecl;
  return managedAgentToWire(decl, {
    name: decl.name ?? logicalName(ctx.owner),
    metadata: withOwnership(decl.metadata, ctx.owner),
    skills: (decl.skills ?? []).map((s) => resolveSkillRef(s, (n) => ctx.resolve("skills", n))),
    roster: decl.multiagent?.agents.map((m) =>
      typeof m === "string" ? ctx.resolve("agents", m) : m.agent_id,
    ),
    update,
  });
}

async function updateManaged(ctx: HandlerContext, id: string, spec: Spec): Promise<RemoteObject> {
  const http = client(ctx, "managed");
  const current = await send(ctx, http, { method: "GET", path: `/agents/${id}` });
  const updated = await send(ctx, http, {
    method: "PUT",
    path: `/agents/${id}`,
    json: { ...managedBody(ctx, spec, true), version: current.version },
  });
  return toRemote(ctx, updated, spec);
}

function forwardPrior(prior: { extra?: Record<string, unknown> } | undefined): boolean {
  return prior?.extra?.delivery === "forward";
}

export const agentHandler: AgentHandler = {
  list: listAgents,
  replaceOn: ["delivery"],
  // Git tokens are secrets: kept in state only as keyed hashes.
  sensitive: ["resources.*.authorization_token"],
  async desired(spec, { configDir, name }) {
    const out = agentDesired(spec as unknown as AgentDecl);
    // An agent's (or Forward Template's) name is `name`, else the logical key, compared when plan
    // gives the key: a renamed key (`agents state mv`) plans the remote rename.
    if (name !== undefined && out.name === undefined) out.name = name;
    // A Forward Template's inherited files by path, each with the digest of its content: an edited
    // file plans an update (the read cannot show file bytes back, so this never reads as drift).
    const files = (spec.files as unknown[] | undefined)?.filter((f): f is string => typeof f === "string");
    if (isForward(spec as unknown as AgentDecl) && files?.length) {
      out.files = Object.fromEntries(
        await Promise.all(
          files.map(async (path) => [path, `sha256:${(await readLocalFile(configDir, path)).sha256}`]),
        ),
      );
    }
    return out;
  },
  async create(ctx, spec) {
    if (isForward(spec as unknown as AgentDecl)) return createTemplate(ctx, spec);
    const http = client(ctx, "managed");
    const payload = managedBody(ctx, spec, false);
    try {
      return toRemote(ctx, await send(ctx, http, { method: "POST", path: "/agents", json: payload }), spec);
    } catch (error) {
      const mine = isConflict(error) ? await findOwnedIn(ctx, http, "/agents", ctx.owner) : undefined;
      if (!mine) throw error;
      return updateManaged(ctx, String(mine.id), spec);
    }
  },
  // Managed Agents from `/agents`, Forward Templates (`tmpl_` ids) from the Forward `/templates`.
  ...afterIdListReader((ids) => {
    const templates = new Set([...ids].filter((id) => id.startsWith("tmpl_")));
    return [
      { domain: "managed", path: "/agents", ids: new Set([...ids].filter((id) => !templates.has(id))) },
      { domain: "forward", path: "/templates", ids: templates },
    ];
  }),
  async read(ctx, id, prior, listed) {
    if (forwardPrior(prior) || id.startsWith("tmpl_"))
      return readTemplate(ctx, id, prior, (await listedOn(listed, "forward"))?.wire);
    const wire =
      (await listedOn(listed, "managed"))?.wire ??
      (await getOrGone(client(ctx, "managed"), `/agents/${id}`, ctx.signal));
    if (wire === "gone" || isArchived(wire)) return "gone";
    return toRemote(ctx, wire, prior?.spec);
  },
  async update(ctx, id, spec, prior) {
    if (isForward(spec as unknown as AgentDecl)) return updateTemplate(ctx, id, spec, prior);
    return updateManaged(ctx, id, spec);
  },
  async remove(ctx, id, prior) {
    if (forwardPrior(prior) || id.startsWith("tmpl_")) return removeTemplate(ctx, id, prior);
    await removeTolerant(client(ctx, "managed"), "DELETE", `/agents/${id}`, ctx.signal);
  },
  async preflightRemove(ctx, id, prior) {
    if (forwardPrior(prior) || id.startsWith("tmpl_")) await captureForDestroy(ctx, id, prior);
  },
  startSession: startManagedSession,
  async findOwned(ctx, owner) {
    const managed = await findOwnedIn(ctx, client(ctx, "managed"), "/agents", owner);
    if (managed) return toRemote(ctx, managed);
    const template = await findOwnedIn(ctx, client(ctx, "forward"), "/templates", owner);
    return template ? toTemplateRemote(ctx, template) : undefined;
  },
  // A Forward Template's inherited files are journaled uploads (templates.ts): what an
  // interrupted run uploaded and nothing records is deleted.
  settleUploads: (ctx, uploads, keep) => settleUploads(forwardFiles(ctx), uploads, keep, listForwardFiles),
};
