// `list` for provider_b (`agents sync`): every object of a kind on both API domains, archived ones
// flagged, each spec in the shape agents.yaml declares it (the handlers' read-back is a compared
// form: `tools: {builtin, ask}`, `delivery: "forward"`, `derived`, which the config schema does
// not accept). Sync compares through the handlers' `desired`, so both shapes agree where nothing
// changed. Walks reuse the adapter's `walkAfterId`; nothing here writes.
import { isArchived, type Wire } from "../common/handler-kit.js";
import { sha256 } from "../common/local-files.js";
import { listedOwnerOf, logicalName, type Metadata, userMetadata } from "../common/ownership.js";
import { collect, walkAfterId } from "../common/paging.js";
import type { HttpClient } from "../http.js";
import type { ListContext, RemoteObject, Spec } from "../types.js";
import { type ApiDomain, domainClient } from "./client.js";
import { domainOf } from "./derive.js";
import { credentialFromWire } from "./mappers/credential.js";
import { environmentFromWire } from "./mappers/environment.js";
import { channelFromWire, identityFromWire } from "./mappers/forward.js";
import { memoryPath, type RemoteMemory } from "./mappers/memory-store.js";
import { builtinFromWire } from "./mappers/tools.js";
import { rosterIdsFromWire } from "./wire-decisions.js";

const DOMAINS: readonly ApiDomain[] = ["managed", "forward"];

function walkAll(ctx: ListContext, http: HttpClient, path: string): Promise<Wire[]> {
  return collect(walkAfterId<Wire>(http, path, { include_archived: true }, ctx.signal));
}

/** The common fields of every listed object; `logical` is the name the file would use. */
function listed(wire: Wire, spec: (logical: string) => Spec): RemoteObject {
  const owner = listedOwnerOf(wire.metadata);
  const logical = owner?.resource ? logicalName(owner) : "";
  return {
    id: String(wire.id),
    spec: spec(logical),
    ...(owner ? { owner } : {}),
    archived: isArchived(wire),
  };
}

export async function listEnvironments(ctx: ListContext): Promise<RemoteObject[]> {
  const out: RemoteObject[] = [];
  for (const domain of DOMAINS)
    for (const wire of await walkAll(ctx, domainClient(ctx, domain), "/environments"))
      out.push(listed(wire, (logical) => environmentFromWire(wire, logical, domain)));
  return out;
}

/** Vaults with their live credentials, secrets never (the provider does not return them). */
export async function listVaults(ctx: ListContext): Promise<RemoteObject[]> {
  const out: RemoteObject[] = [];
  for (const domain of DOMAINS) {
    const http = domainClient(ctx, domain);
    // One credential walk at a time: an account with many vaults must not open as many requests.
    for (const wire of await walkAll(ctx, http, "/vaults")) {
      const credentials = isArchived(wire)
        ? []
        : (await collect(walkAfterId<Wire>(http, `/vaults/${wire.id}/credentials`, {}, ctx.signal)))
            .filter((c) => !c.archived_at)
            .map((c) => credentialFromWire(c as never));
      out.push(
        listed(wire, (logical) => ({
          ...(wire.display_name && wire.display_name !== logical ? { display_name: wire.display_name } : {}),
          credentials,
          metadata: userMetadata(wire.metadata),
        })),
      );
    }
  }
  return out;
}

/**
 * Stores with description and metadata only: their memories are the agents' own (never imported)
 * and the declared seeds are apply's to write, so the file keeps `entries` as declared.
 */
export async function listMemoryStores(ctx: ListContext): Promise<RemoteObject[]> {
  const out: RemoteObject[] = [];
  for (const domain of DOMAINS)
    for (const wire of await walkAll(ctx, domainClient(ctx, domain), "/memory_stores"))
      out.push(
        listed(wire, () => ({
          ...(typeof wire.description === "string" && wire.description
            ? { description: wire.description }
            : {}),
          metadata: userMetadata(wire.metadata),
        })),
      );
  return out;
}

/**
 * The declared seeds of one store as the provider now holds them, read by their keys only: a
 * changed seed comes back with the remote content, a deleted one keeps its declared content
 * (apply writes it again). The store's other memories are never read.
 */
export async function readMemorySeeds(ctx: ListContext, id: string, declared: Spec): Promise<Spec> {
  const entries = Array.isArray(declared.entries)
    ? (declared.entries as { key: string; content: string }[])
    : [];
  if (entries.length === 0) return {};
  const http = domainClient(ctx, domainOf(declared));
  const memories = await collect(
    walkAfterId<RemoteMemory>(http, `/memory_stores/${id}/memories`, {}, ctx.signal),
  );
  const byPath = new Map(
    memories.filter((m) => m.type !== "memory_prefix").map((m) => [m.path.replace(/^\/+/, ""), m]),
  );
  const out: { key: string; content: string }[] = [];
  for (const entry of entries) {
    const memory = byPath.get(memoryPath(entry.key));
    let content = entry.content;
    if (memory && memory.content_sha256 !== sha256(entry.content)) {
      const full = await http.request<{ content?: unknown }>({
        method: "GET",
        path: `/memory_stores/${id}/memories/${memory.id}`,
        allowStatus: [404],
        signal: ctx.signal,
      });
      if (typeof full.body?.content === "string") content = full.body.content;
    }
    out.push({ key: entry.key, content });
  }
  return { entries: out };
}

/**
 * Identities and Channels (Forward API). Neither carries `agents.*` metadata on the wire (an
 * Identity's metadata is the integrating product's, a Channel has none), so no owner is reported:
 * sync claims them through the ids the state records. A Channel's credentials never come back.
 */
export async function listIdentities(ctx: ListContext): Promise<RemoteObject[]> {
  const all = await walkAll(ctx, domainClient(ctx, "forward"), "/identities");
  return all.map((wire) => ({
    id: String(wire.id),
    spec: identityFromWire(wire, ""),
    archived: isArchived(wire),
  }));
}

export async function listChannels(ctx: ListContext): Promise<RemoteObject[]> {
  const all = await walkAll(ctx, domainClient(ctx, "forward"), "/channels");
  return all.map((wire) => ({
    id: String(wire.id),
    spec: channelFromWire(wire, ""),
    archived: isArchived(wire),
  }));
}

/** Managed Agents and Forward Templates, both as `agents` (a Template has `delivery` forward). */
export async function listAgents(ctx: ListContext): Promise<RemoteObject[]> {
  const managed = await walkAll(ctx, domainClient(ctx, "managed"), "/agents");
  const templates = await walkAll(ctx, domainClient(ctx, "forward"), "/templates");
  return [
    ...managed.map((wire) => listed(wire, (logical) => agentDeclFromWire(wire, logical, false))),
    ...templates.map((wire) => ({
      ...listed(wire, (logical) => agentDeclFromWire(wire, logical, true)),
      extra: { sync_refs: templateRefs(wire) },
    })),
  ];
}

/** A Template names its environment and vaults by id; sync maps them to the project's names. */
function templateRefs(wire: Wire) {
  const vaults = Array.isArray(wire.vault_ids) ? (wire.vault_ids as unknown[]).map(String) : [];
  return [
    ...(typeof wire.environment_id === "string" && wire.environment_id
      ? [{ field: "environment", kind: "environments", ids: [wire.environment_id], list: false }]
      : []),
    ...(vaults.length === 1 ? [{ field: "vault", kind: "vaults", ids: vaults, list: false }] : []),
  ];
}

/**
 * A Managed Agent or Forward Template as agents.yaml declares it. Roster members come back as
 * `{agent_id}` and custom skills as `{type: custom, skill_id}`; sync maps both to logical names
 * by ownership and state. What the wire holds only as ids of other objects (a Template's
 * environment, vaults, files) is not shown, so the file's own references are kept.
 */
function agentDeclFromWire(wire: Wire, logical: string, forward: boolean): Spec {
  const { builtin, ask } = builtinFromWire(wire.tools);
  const spec: Spec = {
    ...(wire.name !== logical ? { name: wire.name } : {}),
    ...(typeof wire.description === "string" && wire.description ? { description: wire.description } : {}),
    model: wire.model,
    instructions: wire.system,
    ...(builtin
      ? {
          tools: {
            builtin,
            ...(ask.length ? { permissions: Object.fromEntries(ask.map((n) => [n, "ask"])) } : {}),
          },
        }
      : {}),
    mcp_servers: ((wire.mcp_servers ?? []) as { name: string; url?: string }[]).map((s) => ({
      name: s.name,
      url: s.url,
    })),
    skills: ((wire.skills ?? []) as { type?: string; skill_id: string; version?: string }[]).map((s) =>
      s.type === "qoder"
        ? { type: "official", skill_id: s.skill_id, ...(s.version ? { version: s.version } : {}) }
        : { type: "custom", skill_id: s.skill_id },
    ),
    metadata: userMetadata(wire.metadata) as Metadata,
  };
  const roster = rosterIdsFromWire(wire.multiagent);
  if (roster?.length)
    spec.multiagent = { type: "coordinator", agents: roster.map((id) => ({ agent_id: id })) };
  if (forward) {
    const vars = wire.environment_variables;
    if (vars && typeof vars === "object" && Object.keys(vars).length)
      spec.environment_variables = { ...(vars as object) };
    const tools = wire.managed_tool_config as { enabled_tools?: string[] } | undefined;
    if (tools?.enabled_tools) spec.managed_tool_config = { enabled_tools: [...tools.enabled_tools] };
    spec.delivery = { provider_b: { type: "forward" } };
  }
  return spec;
}
