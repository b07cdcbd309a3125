import type { Request, Router } from "express";
import { body, str } from "../kit/body.js";
import { h, WireError } from "../kit/errors.js";
import { AGENT_FIELDS, checkMetadata, firstAgentVersion, isObject } from "../kit/records.js";
import { getView } from "../kit/routes.js";
import { put, type Rec } from "../kit/store.js";
import { assertFreeName, bad, type Ctx, find, listPage, live, now, stamp, view, writable } from "./common.js";
import { OFFICIAL_SKILLS, skillVersionStatus } from "./uploads.js";

export const BUILTIN_TOOLS = ["bash", "read", "write", "edit", "glob", "grep", "download_file"];
const MAX_ROSTER = 20;
const SNAKE = /^[a-z][a-z0-9_]*$/;

function toggles(value: unknown, at: string): void {
  if (value === undefined) return;
  if (!isObject(value) || typeof value.enabled !== "boolean") throw bad(`${at} must be {enabled: boolean}`);
}

function configs(value: unknown, at: string, allowed?: string[]): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw bad(`${at} must be an array`);
  return value.map((c, j) => {
    if (!isObject(c) || typeof c.name !== "string") throw bad(`${at}[${j}].name is required`);
    if (c.permission_policy !== undefined || c.permission !== undefined) {
      throw bad(`${at}[${j}]: tool permissions are not supported`);
    }
    if (allowed && !allowed.includes(c.name))
      throw bad(`${at}[${j}].name must be one of ${allowed.join(", ")}`);
    if (!allowed && !SNAKE.test(c.name)) throw bad(`${at}[${j}].name must be snake_case`);
    if (c.enabled !== undefined && typeof c.enabled !== "boolean")
      throw bad(`${at}[${j}].enabled must be a boolean`);
    return c;
  });
}

/** Official MCP servers only, referenced by name: `{type:"official", name}`. */
function mcpServers(value: unknown): Array<{ type: string; name: string }> {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw bad("mcp_servers must be an array");
  return value.map((s, i) => {
    if (!isObject(s) || s.type !== "official")
      throw bad(`mcp_servers[${i}].type must be "official" (URL servers are not supported)`);
    if (typeof s.name !== "string" || !/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(s.name))
      throw bad(`mcp_servers[${i}].name is required`);
    return { type: "official", name: s.name };
  });
}

function tools(value: unknown, servers: Array<{ name: string }>): unknown[] {
  if (value === undefined || value === null)
    return [{ type: "builtin_toolkit", default_config: { enabled: true }, configs: [] }];
  if (!Array.isArray(value)) throw bad("tools must be an array");
  return value.map((t, i) => {
    const at = `tools[${i}]`;
    if (!isObject(t)) throw bad(`${at} must be an object`);
    toggles(t.default_config, `${at}.default_config`);
    if (t.type === "builtin_toolkit") {
      return {
        type: t.type,
        default_config: t.default_config ?? { enabled: false },
        configs: configs(t.configs, `${at}.configs`, BUILTIN_TOOLS),
      };
    }
    if (t.type === "mcp_toolkit") {
      if (!servers.some((s) => s.name === t.mcp_server_name))
        throw bad(`${at}.mcp_server_name does not name an entry of mcp_servers`);
      return {
        type: t.type,
        mcp_server_name: t.mcp_server_name,
        default_config: t.default_config ?? { enabled: false },
        configs: configs(t.configs, `${at}.configs`),
      };
    }
    throw bad(`${at}.type must be builtin_toolkit or mcp_toolkit`);
  });
}

/**
 * Skill references. Custom (`customer`) skills need an explicit version that has passed its scan
 * (AGENT_010 otherwise). Official skills are referenced by catalog id (`skill_…`) or by catalog name
 * (`pptx`; docs/wire/provider-a.md §4: official skills by name); their version is optional
 * (the catalog's current one) and the reference is echoed back exactly as sent.
 */
function skills(ctx: Ctx, value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw bad("skills must be an array");
  return value.map((s, i) => {
    const at = `skills[${i}]`;
    if (!isObject(s) || typeof s.skill_id !== "string" || s.skill_id === "")
      throw bad(`${at}.skill_id is required`);
    if (s.type !== "customer" && s.type !== "official")
      throw bad(`${at}.type must be "customer" or "official"`);
    const official = OFFICIAL_SKILLS.find((o) => o.id === s.skill_id || o.name === s.skill_id);
    if ((s.type === "official") !== (official !== undefined))
      throw bad(`${at}: skill ${s.skill_id} is not a ${s.type} skill`);
    if (official && s.version === undefined) return { type: s.type, skill_id: s.skill_id };
    if (typeof s.version !== "string" || s.version === "") throw bad(`${at}.version is required`);
    const status = skillVersionStatus(ctx, official ? official.id : s.skill_id, s.version);
    if (status === undefined) throw bad(`${at}: skill ${s.skill_id} has no version ${s.version}`);
    if (status !== "active") {
      throw bad(`${at}: skill ${s.skill_id} version ${s.version} is ${status}, not active`, "AGENT_010");
    }
    return { type: s.type, skill_id: s.skill_id, version: s.version };
  });
}

/**
 * Coordinator roster (wire shape undetermined upstream): `{type:"coordinator", agents:[{type:"agent",
 * id}]}` with ids only; an empty roster (or `[]`) clears it and reads back as null.
 */
function roster(ctx: Ctx, value: unknown, selfId?: string): unknown {
  if (value === null || (Array.isArray(value) && value.length === 0)) return null;
  if (!isObject(value) || value.type !== "coordinator" || !Array.isArray(value.agents)) {
    throw bad('multiagent must be {type:"coordinator", agents:[...]}');
  }
  if (value.agents.length === 0) return null;
  if (value.agents.length > MAX_ROSTER) throw bad(`multiagent.agents holds at most ${MAX_ROSTER} members`);
  const seen = new Set<string>();
  return {
    type: "coordinator",
    agents: value.agents.map((m, i) => {
      const id = isObject(m) ? m.id : undefined;
      if (typeof id !== "string") throw bad(`multiagent.agents[${i}] must be {type:"agent", id}`);
      if (isObject(m) && m.version !== undefined)
        throw bad(`multiagent.agents[${i}]: member versions are not accepted`);
      if (id === selfId) throw bad(`multiagent.agents[${i}]: an agent cannot coordinate itself`);
      if (seen.has(id)) throw bad(`multiagent.agents: duplicate member ${id}`);
      seen.add(id);
      const member = ctx.state.objects.agents.get(id);
      if (!member || member.archived_at) throw bad(`multiagent.agents[${i}]: agent ${id} not found`);
      return { type: "agent", id };
    }),
  };
}

const MUTABLE = AGENT_FIELDS;

function agentFields(ctx: Ctx, b: Record<string, unknown>, current?: Rec): Record<string, unknown> {
  const has = (k: string) => !current || b[k] !== undefined;
  const out: Record<string, unknown> = {};
  if (has("name")) out.name = str(b, "name", true);
  if (has("model")) {
    if (!isObject(b.model) || typeof b.model.id !== "string" || b.model.id === "")
      throw bad("model must be {id: string}");
    out.model = { id: b.model.id };
  }
  if (has("system")) out.system = str(b, "system") ?? "";
  if (has("description")) out.description = str(b, "description") ?? "";
  const servers = has("mcp_servers")
    ? mcpServers(b.mcp_servers)
    : (current!.mcp_servers as Array<{ name: string }>);
  if (has("mcp_servers")) out.mcp_servers = servers;
  if (has("tools")) out.tools = tools(b.tools, servers);
  if (has("skills")) out.skills = skills(ctx, b.skills);
  if (has("multiagent"))
    out.multiagent = b.multiagent === undefined ? null : roster(ctx, b.multiagent, current?.id);
  if (has("metadata")) out.metadata = checkMetadata(b.metadata);
  for (const k of ["environment_variables", "managed_tool_config"]) {
    if (b[k] !== undefined) throw bad(`${k} is not supported`);
  }
  return out;
}

export function agentRoutes(r: Router, ctx: Ctx): void {
  const get = (req: Request) => find(ctx, "agents", req.params.id as string, "agent");
  r.post(
    "/agents",
    h((req, res) => {
      const fields = agentFields(ctx, body(req));
      assertFreeName(ctx.state.objects.agents.values(), "name", fields.name);
      const rec = put(ctx.state, "agents", firstAgentVersion(ctx.ids.next("agent_", 26), fields, stamp(ctx)));
      res.json(view(rec));
    }),
  );
  r.get(
    "/agents",
    h((req, res) => {
      // `keyword` is accepted and ignored, as upstream.
      res.json(listPage(ctx, req, live(ctx, "agents", req)));
    }),
  );
  getView(r, "/agents/:id", (req) => get(req));
  r.post(
    "/agents/:id",
    h((req, res) => {
      const rec = get(req);
      writable(rec, "agent");
      const b = body(req);
      if (typeof b.version !== "number") throw bad("version is required (the agent's current version)");
      if (b.version !== rec.version) {
        throw new WireError(
          400,
          "version_mismatch",
          `version ${b.version} is stale; the current version is ${rec.version}`,
        );
      }
      const fields = agentFields(ctx, b, rec);
      if (fields.name !== undefined)
        assertFreeName(ctx.state.objects.agents.values(), "name", fields.name, rec.id);
      if (MUTABLE.some((k) => k in fields && JSON.stringify(fields[k]) !== JSON.stringify(rec[k]))) {
        (rec._versions as unknown[]).push(
          Object.fromEntries([...MUTABLE, "version"].map((k) => [k, rec[k]])),
        );
        Object.assign(rec, fields, { version: (rec.version as number) + 1, updated_at: now(ctx) });
      }
      res.json(view(rec));
    }),
  );
  r.post(
    "/agents/:id/archive",
    h((req, res) => {
      const rec = get(req);
      if (!rec.archived_at) rec.archived_at = now(ctx);
      res.json(view(rec));
    }),
  );
}
