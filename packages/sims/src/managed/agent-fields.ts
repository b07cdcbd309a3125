import { ApiError, invalid } from "./errors.js";
import type { Kit, Obj } from "./state.js";
import {
  allowOnly,
  checkString,
  isObject,
  type Json,
  type JsonObject,
  optBool,
  requireObject,
} from "./validate.js";

export const BUILTIN_TOOLS = ["read", "write", "edit", "bash", "glob", "grep", "web_search", "web_fetch"];
const POLICIES = ["always_allow", "always_ask"];
const MAX_ROSTER = 20;
/** Built-in skills of provider_c (`type: "anthropic"`); provider_d calls its catalog `official`. */
const BUILTIN_SKILL_TYPE: Record<string, string> = { provider_c: "anthropic", provider_d: "official" };

/** provider_d's type errors read like its Go backend's ("Mismatch type agent.ModelConfig"). */
const mismatch = (kit: Kit, goType: string, where: string, expected: string) =>
  kit.dialect.name === "provider_d"
    ? new ApiError(400, "invalid_request_error", `${where}: Mismatch type ${goType}`)
    : invalid(`${where}: expected ${expected}`);

export function parseModel(v: unknown, kit: Kit): JsonObject {
  if (v === undefined || v === null) throw invalid("model: Field required");
  if (typeof v === "string") {
    if (kit.dialect.modelObjectOnly) throw mismatch(kit, "agent.ModelConfig", "model", "an object");
    return { id: checkString(v, "model", { min: 1 }), speed: "standard" };
  }
  if (!isObject(v)) throw mismatch(kit, "agent.ModelConfig", "model", "a string or an object");
  allowOnly(v, ["id", "speed", "effort"], "model");
  const id = checkString(v.id, "model.id", { min: 1 });
  const speed = v.speed ?? "standard";
  if (speed !== "standard" && speed !== "fast") throw invalid(`model.speed: must be "standard" or "fast"`);
  const out: JsonObject = { id, speed };
  if (v.effort !== undefined) out.effort = checkString(v.effort, "model.effort");
  return out;
}

function policy(v: unknown, where: string): JsonObject | undefined {
  if (v === undefined) return undefined;
  const p = requireObject(v, where);
  if (typeof p.type !== "string" || !POLICIES.includes(p.type)) {
    throw invalid(`${where}.type: must be one of ${POLICIES.join(", ")}`);
  }
  return { type: p.type };
}

function toolConfig(v: unknown, where: string, fallback: JsonObject): JsonObject {
  const c = v === undefined ? {} : requireObject(v, where);
  allowOnly(c, ["enabled", "permission_policy"], where);
  return {
    enabled: optBool(c, "enabled", `${where}.enabled`) ?? (fallback.enabled as boolean),
    permission_policy:
      policy(c.permission_policy, `${where}.permission_policy`) ?? (fallback.permission_policy as Json),
  };
}

function toolset(t: JsonObject, where: string, names: readonly string[] | null): JsonObject {
  const defaults = toolConfig(t.default_config, `${where}.default_config`, {
    enabled: true,
    permission_policy: { type: "always_allow" },
  });
  if (t.configs !== undefined && !Array.isArray(t.configs))
    throw invalid(`${where}.configs: expected an array`);
  const seen = new Set<string>();
  const configs = ((t.configs as Json[] | undefined) ?? []).map((raw, i) => {
    const w = `${where}.configs[${i}]`;
    const c = requireObject(raw, w);
    allowOnly(c, ["name", "enabled", "permission_policy"], w);
    const name = checkString(c.name, `${w}.name`, { min: 1 });
    if (names && !names.includes(name))
      throw invalid(`${w}.name: unknown tool ${JSON.stringify(name)}; known: ${names.join(", ")}`);
    if (seen.has(name)) throw invalid(`${w}.name: duplicate tool ${JSON.stringify(name)}`);
    seen.add(name);
    const { enabled, permission_policy } = toolConfig(
      { enabled: c.enabled, permission_policy: c.permission_policy },
      w,
      defaults,
    );
    return { name, enabled, permission_policy } as JsonObject;
  });
  return { default_config: defaults, configs };
}

export function parseMcpServers(v: unknown): JsonObject[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalid("mcp_servers: expected an array");
  const names = new Set<string>();
  return v.map((raw, i) => {
    const w = `mcp_servers[${i}]`;
    const s = requireObject(raw, w);
    allowOnly(s, ["name", "type", "url"], w);
    if (s.type !== "url") throw invalid(`${w}.type: must be "url"`);
    const name = checkString(s.name, `${w}.name`, { min: 1, max: 255 });
    if (names.has(name)) throw invalid(`${w}.name: duplicate MCP server name ${JSON.stringify(name)}`);
    names.add(name);
    const url = checkString(s.url, `${w}.url`, { min: 1 });
    if (!URL.canParse(url)) throw invalid(`${w}.url: not a URL`);
    return { name, type: "url", url };
  });
}

export function parseTools(v: unknown, servers: JsonObject[], kit: Kit): JsonObject[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalid("tools: expected an array");
  const serverNames = new Set(servers.map((s) => s.name as string));
  let builtinSeen = false;
  return v.map((raw, i): JsonObject => {
    const w = `tools[${i}]`;
    const t = requireObject(raw, w);
    if (t.type === kit.dialect.toolsetType) {
      if (builtinSeen) throw invalid(`${w}: only one ${kit.dialect.toolsetType} entry is allowed`);
      builtinSeen = true;
      allowOnly(t, ["type", "default_config", "configs"], w);
      return { type: t.type, ...toolset(t, w, BUILTIN_TOOLS) };
    }
    if (t.type === "mcp_toolset") {
      allowOnly(t, ["type", "mcp_server_name", "default_config", "configs"], w);
      const server = checkString(t.mcp_server_name, `${w}.mcp_server_name`, { min: 1 });
      if (!serverNames.has(server))
        throw invalid(`${w}.mcp_server_name: no MCP server named ${JSON.stringify(server)} in mcp_servers`);
      return { type: "mcp_toolset", mcp_server_name: server, ...toolset(t, w, null) };
    }
    if (t.type === "custom") {
      allowOnly(t, ["type", "name", "description", "input_schema"], w);
      return {
        type: "custom",
        name: checkString(t.name, `${w}.name`, { min: 1, max: 128 }),
        description: t.description === undefined ? "" : checkString(t.description, `${w}.description`),
        input_schema: requireObject(t.input_schema, `${w}.input_schema`),
      };
    }
    throw invalid(`${w}.type: must be one of ${kit.dialect.toolsetType}, mcp_toolset, custom`);
  });
}

export function parseSkills(v: unknown, kit: Kit): JsonObject[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalid("skills: expected an array");
  const builtin = BUILTIN_SKILL_TYPE[kit.dialect.name] ?? "anthropic";
  const seen = new Set<string>();
  return v.map((raw, i) => {
    const w = `skills[${i}]`;
    const s = requireObject(raw, w);
    allowOnly(s, ["type", "skill_id", "version"], w);
    if (s.type !== "custom" && s.type !== builtin)
      throw invalid(`${w}.type: must be "custom" or "${builtin}"`);
    const id = checkString(s.skill_id, `${w}.skill_id`, { min: 1 });
    if (seen.has(id)) throw invalid(`${w}.skill_id: duplicate skill ${JSON.stringify(id)}`);
    seen.add(id);
    const out: JsonObject = { type: s.type, skill_id: id };
    if (kit.dialect.name === "provider_d") {
      // provider_d skills have no versions: the reference is the id alone.
      if (s.type === "custom" && !kit.state().skills.has(id)) {
        throw invalid(`${w}.skill_id: skill ${JSON.stringify(id)} not found`);
      }
      if (s.version !== undefined) throw invalid(`${w}.version: Extra inputs are not permitted`);
      return out;
    }
    if (s.type === "custom") {
      const skill = kit.state().skills.get(id);
      if (!skill) throw invalid(`${w}.skill_id: skill ${JSON.stringify(id)} not found`);
      const version =
        s.version === undefined ? skill.latest_version_id : checkString(s.version, `${w}.version`);
      if (version !== "latest" && !kit.state().skillVersions.has(`${id}@${version}`)) {
        throw invalid(`${w}.version: skill ${id} has no version ${JSON.stringify(version)}`);
      }
      out.version = version ?? null;
    } else {
      out.version = s.version === undefined ? "latest" : checkString(s.version, `${w}.version`);
    }
    return out;
  });
}

/**
 * A coordinator roster: 1-20 distinct members that exist, are not archived and coordinate nobody
 * themselves (depth 1). Read back as objects with the member's version pinned.
 */
export function parseMultiagent(v: unknown, kit: Kit, selfId?: string): JsonObject | null {
  if (v === undefined || v === null) return null;
  const m = requireObject(v, "multiagent");
  allowOnly(m, ["type", "agents"], "multiagent");
  if (m.type !== "coordinator") throw invalid(`multiagent.type: must be "coordinator"`);
  if (!Array.isArray(m.agents) || m.agents.length < 1 || m.agents.length > MAX_ROSTER) {
    throw invalid(`multiagent.agents: expected 1-${MAX_ROSTER} entries`);
  }
  const seen = new Set<string>();
  let selfCount = 0;
  const agents = m.agents.map((raw, i) => {
    const w = `multiagent.agents[${i}]`;
    let id: string;
    let version: number | undefined;
    if (typeof raw === "string") {
      if (kit.dialect.rosterObjectsOnly) throw mismatch(kit, "agent.AgentRef", w, "an object");
      id = raw;
    } else {
      const e = requireObject(raw, w);
      if (e.type === "self" && !kit.dialect.rosterObjectsOnly) {
        allowOnly(e, ["type"], w);
        if (++selfCount > 1) throw invalid(`${w}: at most one {type:"self"} entry`);
        return { type: "self" } as JsonObject;
      }
      if (e.type !== "agent")
        throw invalid(`${w}.type: must be "agent"${kit.dialect.rosterObjectsOnly ? "" : ' or "self"'}`);
      allowOnly(e, ["type", "id", "version"], w);
      id = checkString(e.id, `${w}.id`, { min: 1 });
      if (e.version !== undefined) {
        if (!Number.isInteger(e.version)) throw invalid(`${w}.version: expected an integer`);
        version = e.version as number;
      }
    }
    if (seen.has(id) || id === selfId)
      throw invalid(`${w}: duplicate or self-referencing roster entry ${JSON.stringify(id)}`);
    seen.add(id);
    const member: Obj | undefined = kit.state().agents.get(id);
    if (!member) throw invalid(`${w}: agent ${JSON.stringify(id)} not found`);
    if (member.archived_at) throw invalid(`${w}: agent ${id} is archived`);
    if (member.multiagent) throw invalid(`${w}: agent ${id} coordinates agents itself (roster depth is 1)`);
    if (version !== undefined && (version < 1 || version > member.version)) {
      throw invalid(`${w}.version: agent ${id} has no version ${version}`);
    }
    return { type: "agent", id, version: version ?? member.version } as JsonObject;
  });
  return { type: "coordinator", agents };
}
