// Agents. The wire object holds name, model, system, tools, MCP servers, skills, roster and
// metadata; what the declaration attaches to sessions (environment, vault, memory stores, file
// mounts, repositories) is not an agent field on either provider and is kept as session
// defaults in the engine's state (`extra.session`) for runs and deployments.

import { DeclarationError } from "../common/errors.js";
import { str } from "../common/handler-kit.js";
import { type Metadata, userMetadata } from "../common/ownership.js";
import type { Kind } from "../types.js";
import { fileResource, gitRepositoryToWire } from "./resources.js";
import { compact, isRecord, type Json, nonEmpty, records, strList } from "./spec.js";
import { canonicalTools, toolsFromWire, toolsToWire } from "./tools.js";

export interface AgentDialect {
  provider: "provider_c" | "provider_d";
  toolsetType: string;
  /** provider_c accepts a bare model id; provider_d only `{id}`. */
  modelForm: "string" | "object";
  /** provider_c accepts bare ids in the roster; provider_d only `{type:"agent", id}`. */
  rosterForm: "string" | "object";
  /** Wire value of a declared `official` skill reference. */
  officialSkillType: string;
  mountRoot: string;
  gitRepositories: boolean;
}

export interface Resolver {
  resolve(kind: Kind, name: string): string;
  resolveExtra(kind: Kind, name: string): Record<string, unknown> | undefined;
}

/**
 * Remote id → logical name, for ids the declaration refers to by name. The key
 * `unpinned:<skill id>` marks a skill reference declared without a version (the provider pins
 * one on save, which is not a change the user made).
 */
export type ReverseRefs = Map<string, string>;

export function modelFor(spec: Json, provider: string): string {
  if (typeof spec.model === "string") return spec.model;
  if (isRecord(spec.model)) {
    const model = str(spec.model[provider]);
    if (model) return model;
    throw new DeclarationError(
      "managed.model_map_without_entry",
      `model has no entry for ${provider}; add \`${provider}: <model id>\` under model`,
    );
  }
  throw new DeclarationError("managed.agent_without_model", "model is required");
}

function skillToWire(entry: unknown, dialect: AgentDialect, refs: Resolver): Json {
  if (typeof entry === "string") {
    const extra = refs.resolveExtra("skills", entry);
    const origin = extra?.origin === "official" ? dialect.officialSkillType : "custom";
    return { type: origin, skill_id: refs.resolve("skills", entry) };
  }
  if (!isRecord(entry) || !str(entry.skill_id))
    throw new DeclarationError("managed.skill_reference_without_id", "a skill reference needs skill_id");
  const type = entry.type === "official" ? dialect.officialSkillType : (str(entry.type) ?? "custom");
  return compact({ type, skill_id: str(entry.skill_id), version: str(entry.version) });
}

function mcpServers(spec: Json): Json[] {
  return records(spec.mcp_servers).map((server) => {
    const name = str(server.name);
    const url = str(server.url);
    if (!name)
      throw new DeclarationError("managed.mcp_server_without_name", "every mcp_servers entry needs a name");
    if (!url)
      throw new DeclarationError(
        "managed.mcp_server_without_url",
        `mcp_servers "${name}": this provider reaches MCP servers by url only; add url`,
      );
    return { name, type: "url", url };
  });
}

function rosterMember(entry: unknown, dialect: AgentDialect, refs: Resolver): unknown {
  const id =
    typeof entry === "string"
      ? refs.resolve("agents", entry)
      : isRecord(entry)
        ? str(entry.agent_id)
        : undefined;
  if (!id)
    throw new DeclarationError(
      "managed.roster_member_shape",
      "multiagent.agents entries are agent names or {agent_id}",
    );
  return dialect.rosterForm === "string" ? id : { type: "agent", id };
}

export function agentToWire(
  spec: Json,
  name: string,
  metadata: Metadata,
  dialect: AgentDialect,
  refs: Resolver,
  warn?: (message: string) => void,
): Json {
  const model = modelFor(spec, dialect.provider);
  const servers = mcpServers(spec);
  const tools = canonicalTools(spec.tools, warn, { keepDefaultToolkits: true });
  const roster = isRecord(spec.multiagent) ? spec.multiagent : undefined;
  return {
    name,
    description: str(spec.description) ?? "",
    model: dialect.modelForm === "string" ? model : { id: model },
    system: str(spec.instructions) ?? "",
    tools: toolsToWire(
      tools,
      servers.map((s) => String(s.name)),
      dialect.toolsetType,
    ),
    mcp_servers: servers,
    skills: (Array.isArray(spec.skills) ? spec.skills : []).map((s) => skillToWire(s, dialect, refs)),
    multiagent: roster
      ? {
          type: "coordinator",
          agents: (Array.isArray(roster.agents) ? roster.agents : []).map((m) =>
            rosterMember(m, dialect, refs),
          ),
        }
      : null,
    metadata,
  };
}

/** The declared agent in comparable form (only the fields the remote agent can show back). */
export function canonicalAgent(spec: Json, provider: string): Json {
  const roster = isRecord(spec.multiagent) ? spec.multiagent : undefined;
  return compact({
    description: nonEmpty(str(spec.description)),
    model: isRecord(spec.model) ? str(spec.model[provider]) : str(spec.model),
    instructions: str(spec.instructions),
    tools: canonicalTools(spec.tools),
    mcp_servers: canonicalServers(records(spec.mcp_servers)),
    skills: (Array.isArray(spec.skills) ? spec.skills : []).map(canonicalSkill),
    multiagent: roster
      ? {
          type: "coordinator",
          agents: (Array.isArray(roster.agents) ? roster.agents : []).map((m) =>
            isRecord(m) ? { agent_id: str(m.agent_id) } : m,
          ),
        }
      : undefined,
    metadata: userMetadata(spec.metadata),
  });
}

function canonicalServers(servers: Json[]): Json[] {
  return servers
    .map((s) => compact({ name: str(s.name), url: str(s.url) }))
    .sort((a, b) => String(a.name).localeCompare(String(b.name)));
}

function canonicalSkill(entry: unknown): unknown {
  if (!isRecord(entry)) return entry;
  return compact({
    type: str(entry.type) ?? "custom",
    skill_id: str(entry.skill_id),
    version: str(entry.version),
  });
}

/** Remote agent → declared shape; ids the declaration names logically map back to those names. */
export function agentFromWire(remote: Json, dialect: AgentDialect, reverse: ReverseRefs): Json {
  const model = isRecord(remote.model) ? str(remote.model.id) : str(remote.model);
  const roster = isRecord(remote.multiagent) ? remote.multiagent : undefined;
  const members = Array.isArray(roster?.agents) ? roster.agents : [];
  const spec: Json = compact({
    description: nonEmpty(str(remote.description)),
    model,
    instructions: str(remote.system),
    tools: toolsFromWire(remote.tools),
    mcp_servers: canonicalServers(records(remote.mcp_servers)),
    skills: records(remote.skills).map((s) => {
      const id = str(s.skill_id) ?? "";
      const logical = reverse.get(id);
      if (logical !== undefined) return logical;
      const type = s.type === dialect.officialSkillType ? "official" : (str(s.type) ?? "custom");
      const version = str(s.version);
      const pinnedByUser = version !== undefined && version !== "latest" && !reverse.has(`unpinned:${id}`);
      return compact({ type, skill_id: id, version: pinnedByUser ? version : undefined });
    }),
    multiagent: roster
      ? {
          type: "coordinator",
          agents: members.map((m) => {
            const id = typeof m === "string" ? m : isRecord(m) ? str(m.id) : undefined;
            return reverse.get(id ?? "") ?? { agent_id: id ?? "" };
          }),
        }
      : undefined,
    metadata: userMetadata(remote.metadata),
  });
  // The wire always shows the roster, so "none" is an observation too: a coordinator whose roster
  // was cleared remotely (`multiagent: null`) is drift, while an agent that never declared one
  // compares null with nothing and stays unchanged.
  if (!roster) spec.multiagent = null;
  return spec;
}

/** Remote ids of everything an agent declaration names logically, for mapping read-backs. */
export function agentReverseRefs(spec: Json, refs: Resolver): ReverseRefs {
  const reverse: ReverseRefs = new Map();
  const add = (kind: Kind, name: string) => {
    try {
      reverse.set(refs.resolve(kind, name), name);
    } catch {
      // Not applied yet (or released): the id then shows as an external reference.
    }
  };
  for (const s of Array.isArray(spec.skills) ? spec.skills : []) {
    if (typeof s === "string") add("skills", s);
    else if (isRecord(s) && str(s.skill_id) && s.version === undefined)
      reverse.set(`unpinned:${str(s.skill_id)}`, "");
  }
  const roster = isRecord(spec.multiagent) ? spec.multiagent : undefined;
  for (const m of Array.isArray(roster?.agents) ? roster.agents : [])
    if (typeof m === "string") add("agents", m);
  return reverse;
}

/**
 * What every session of this agent starts with. Kept in state, so repository tokens are left
 * out here; a run reads them from the declaration again.
 */
export function sessionDefaults(
  spec: Json,
  dialect: AgentDialect,
  refs: Resolver,
  warn?: (m: string) => void,
): Json {
  const resources: Json[] = [];
  for (const store of strList(spec.memory_stores))
    resources.push({ type: "memory_store", memory_store_id: refs.resolve("memory_stores", store) });
  for (const file of Array.isArray(spec.files) ? spec.files : []) {
    const name = typeof file === "string" ? file : isRecord(file) ? str(file.file) : undefined;
    if (!name)
      throw new DeclarationError(
        "managed.agent_file_shape",
        "agent files entries are file names or {file, mount_path}",
      );
    const mount = isRecord(file) ? str(file.mount_path) : undefined;
    resources.push(fileResource(refs.resolve("files", name), mount, dialect.mountRoot));
  }
  for (const resource of records(spec.resources)) {
    if (resource.type !== "git_repository") continue;
    if (!dialect.gitRepositories) {
      warn?.(
        `git_repository resource ${String(resource.url)} is not supported by ${dialect.provider}; dropped`,
      );
      continue;
    }
    resources.push(gitRepositoryToWire(resource, { root: dialect.mountRoot, includeToken: false }));
  }
  const environment = str(spec.environment);
  const vault = str(spec.vault);
  return compact({
    environment_id: environment ? refs.resolve("environments", environment) : undefined,
    vault_ids: vault ? [refs.resolve("vaults", vault)] : undefined,
    resources,
  });
}
