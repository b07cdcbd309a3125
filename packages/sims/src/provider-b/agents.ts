import type { Router } from "express";
import { body, str } from "../kit/body.js";
import { h } from "../kit/errors.js";
import { AGENT_FIELDS, checkMetadata, firstAgentVersion, isObject } from "../kit/records.js";
import { answer, getView } from "../kit/routes.js";
import { put, type Rec } from "../kit/store.js";
import {
  archiveRoute,
  assertUnique,
  bad,
  type Ctx,
  conflict,
  find,
  listAfterId,
  notArchived,
  stamp,
  view,
} from "./common.js";
import type { Domain } from "./state.js";
import { BUILTIN_SKILLS } from "./uploads.js";

const TOOLSET = "agent_toolset_20260401";
const MAX_ROSTER = 20;

/** `mcp_servers`: URL servers only (`{name, type:"http", url}`), names unique. */
export function mcpServers(value: unknown): Record<string, unknown>[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw bad("mcp_servers must be an array");
  const names = new Set<string>();
  return value.map((s, i) => {
    if (!isObject(s) || typeof s.name !== "string" || s.name === "")
      throw bad(`mcp_servers[${i}].name is required`);
    if (s.type !== undefined && s.type !== "http") throw bad(`mcp_servers[${i}].type must be "http"`);
    if (typeof s.url !== "string" || !/^https?:\/\//.test(s.url))
      throw bad(`mcp_servers[${i}].url must be an http(s) URL`);
    if (names.has(s.name)) throw bad(`mcp_servers[${i}].name "${s.name}" is duplicated`);
    names.add(s.name);
    return { name: s.name, type: "http", url: s.url };
  });
}

/** `tools`: the built-in toolset (configs with PascalCase names) and per-server MCP toolsets. */
export function tools(value: unknown, servers: Record<string, unknown>[]): unknown[] {
  if (value === undefined || value === null) return [{ type: TOOLSET }];
  if (!Array.isArray(value)) throw bad("tools must be an array");
  return value.map((t, i) => {
    if (!isObject(t)) throw bad(`tools[${i}] must be an object`);
    if (t.type === "mcp_toolset" && !servers.some((s) => s.name === t.mcp_server_name)) {
      throw bad(`tools[${i}].mcp_server_name does not name an entry of mcp_servers`);
    }
    if (t.type !== TOOLSET && t.type !== "mcp_toolset")
      throw bad(`tools[${i}].type must be ${TOOLSET} or mcp_toolset`);
    for (const [j, c] of (Array.isArray(t.configs) ? t.configs : []).entries()) {
      if (!isObject(c) || typeof c.name !== "string") throw bad(`tools[${i}].configs[${j}].name is required`);
      if (t.type === TOOLSET && !/^[A-Z][A-Za-z]*$/.test(c.name)) {
        throw bad(`tools[${i}].configs[${j}].name must be a PascalCase tool name`);
      }
      const policy = c.permission_policy;
      if (
        policy !== undefined &&
        (!isObject(policy) || !["always_allow", "always_ask"].includes(String(policy.type)))
      ) {
        throw bad(`tools[${i}].configs[${j}].permission_policy.type must be always_allow or always_ask`);
      }
    }
    return t;
  });
}

/** `skills`: custom skills of the same API domain, or built-in (`qoder`) ones. */
export function skillRefs(ctx: Ctx, value: unknown, domain: Domain): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw bad("skills must be an array");
  return value.map((s, i) => {
    if (!isObject(s) || typeof s.skill_id !== "string") throw bad(`skills[${i}].skill_id is required`);
    if (s.type === "qoder") {
      if (!BUILTIN_SKILLS.some((b) => b.id === s.skill_id))
        throw bad(`skills[${i}]: unknown built-in skill ${s.skill_id}`);
    } else if (s.type === "custom") {
      const rec = ctx.state.objects.skills.get(s.skill_id);
      if (!rec || rec._domain !== domain) throw bad(`skills[${i}]: skill ${s.skill_id} not found`);
    } else {
      throw bad(`skills[${i}].type must be "custom" or "qoder"`);
    }
    return s;
  });
}

/** A coordinator roster's members, 1 to 20 of them, checked for shape only; null removes the roster. */
export function rosterMembers(value: unknown): unknown[] | null {
  if (value === null) return null;
  if (!isObject(value) || value.type !== "coordinator") throw bad('multiagent.type must be "coordinator"');
  const members = value.agents;
  if (!Array.isArray(members) || members.length < 1 || members.length > MAX_ROSTER) {
    throw bad(`multiagent.agents must hold 1 to ${MAX_ROSTER} entries`);
  }
  return members;
}

/**
 * Managed coordinator roster: 1–20 unique members, each `{type:"agent", id, version?}` or
 * `{type:"self"}`; the platform pins each member's current version on save.
 */
function managedRoster(ctx: Ctx, value: unknown, selfId?: string): unknown {
  const members = rosterMembers(value);
  if (members === null) return null;
  const seen = new Set<string>();
  const agents = members.map((m, i) => {
    if (!isObject(m)) throw bad(`multiagent.agents[${i}] must be an object`);
    if (m.type === "self") {
      if (seen.has("self")) throw bad("multiagent.agents: duplicate entry self");
      seen.add("self");
      return { type: "self" };
    }
    if (m.type !== "agent" || typeof m.id !== "string")
      throw bad(`multiagent.agents[${i}] must be {type:"agent", id}`);
    if (m.id === selfId) throw bad(`multiagent.agents[${i}]: use {type:"self"} to reference the coordinator`);
    if (seen.has(m.id)) throw bad(`multiagent.agents: duplicate member ${m.id}`);
    seen.add(m.id);
    const member = ctx.state.objects.agents.get(m.id);
    if (!member || member.archived_at) throw bad(`multiagent.agents[${i}]: agent ${m.id} not found`);
    if (
      m.version !== undefined &&
      (typeof m.version !== "number" || m.version > (member.version as number))
    ) {
      throw bad(`multiagent.agents[${i}].version does not exist`);
    }
    return { type: "agent", id: m.id, version: m.version ?? member.version };
  });
  return { type: "coordinator", agents };
}

const MUTABLE = AGENT_FIELDS;

function agentFields(ctx: Ctx, b: Record<string, unknown>, current?: Rec): Record<string, unknown> {
  const servers =
    b.mcp_servers !== undefined ? mcpServers(b.mcp_servers) : ((current?.mcp_servers as []) ?? []);
  const out: Record<string, unknown> = {};
  if (!current || b.name !== undefined) out.name = str(b, "name", true);
  if (!current || b.model !== undefined) out.model = str(b, "model", true);
  if (b.system !== undefined || !current) out.system = str(b, "system") ?? "";
  if (b.description !== undefined || !current) out.description = str(b, "description") ?? "";
  out.mcp_servers = servers;
  if (b.tools !== undefined || !current) out.tools = tools(b.tools, servers);
  if (b.skills !== undefined || !current) out.skills = skillRefs(ctx, b.skills, "managed");
  if (b.multiagent !== undefined) out.multiagent = managedRoster(ctx, b.multiagent, current?.id);
  else if (!current) out.multiagent = null;
  if (b.metadata !== undefined || !current) out.metadata = checkMetadata(b.metadata);
  return out;
}

export function agentRoutes(r: Router, ctx: Ctx): void {
  const agents = () => ctx.state.objects.agents;
  const get = (id: string) => find(ctx, "agents", id, "agent");

  r.post(
    "/agents",
    h((req, res) => {
      const b = body(req);
      const fields = agentFields(ctx, b);
      assertUnique(agents().values(), "name", fields.name);
      const rec = put(ctx.state, "agents", firstAgentVersion(ctx.ids.next("agent_", 32), fields, stamp(ctx)));
      res.json(view(rec));
    }),
  );
  r.get(
    "/agents",
    h((req, res) => {
      const all = req.query.include_archived === "true";
      res.json(
        listAfterId(
          ctx,
          req,
          [...agents().values()].filter((a) => all || !a.archived_at),
        ),
      );
    }),
  );
  getView(r, "/agents/:id", (req) => get(req.params.id as string));
  r.put(
    "/agents/:id",
    h((req, res) => {
      const rec = get(req.params.id as string);
      notArchived(rec, "agent");
      const b = body(req);
      if (typeof b.version !== "number") throw bad("version is required (the agent's current version)");
      if (b.version !== rec.version) {
        throw conflict(
          `version ${b.version} is stale; the current version is ${rec.version}`,
          "VERSION_CONFLICT",
        );
      }
      const fields = agentFields(ctx, b, rec);
      if (fields.name !== undefined) assertUnique(agents().values(), "name", fields.name, rec.id);
      const changed = MUTABLE.some(
        (k) => k in fields && JSON.stringify(fields[k]) !== JSON.stringify(rec[k]),
      );
      if (changed) {
        (rec._versions as unknown[]).push(
          Object.fromEntries(MUTABLE.map((k) => [k, rec[k]]).concat([["version", rec.version]])),
        );
        Object.assign(rec, fields, { version: (rec.version as number) + 1, updated_at: ctx.clock.iso() });
      }
      res.json(view(rec));
    }),
  );
  r.delete(
    "/agents/:id",
    h((req, res) => {
      const rec = get(req.params.id as string);
      agents().delete(rec.id);
      res.json({ id: rec.id, type: "agent_deleted" });
    }),
  );
  archiveRoute(r, ctx, "/agents/:id/archive", "agent", (req) => get(req.params.id as string));
  r.get(
    "/models",
    answer(() => ({ data: MODELS, has_more: false, last_id: MODELS.at(-1)!.id })),
  );
}

const MODELS = [
  { id: "auto", display_name: "Auto", source: "qoder", is_enabled: true, is_new: false },
  { id: "efficient", display_name: "Efficient", source: "qoder", is_enabled: true, is_new: false },
  { id: "performance", display_name: "Performance", source: "qoder", is_enabled: true, is_new: false },
  { id: "ultimate", display_name: "Ultimate", source: "qoder", is_enabled: true, is_new: true },
];
