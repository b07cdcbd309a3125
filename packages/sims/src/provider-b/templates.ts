import type { Request, Router } from "express";
import { body, str } from "../kit/body.js";
import { h } from "../kit/errors.js";
import { checkMetadata, isObject } from "../kit/records.js";
import { getView } from "../kit/routes.js";
import { put, type Rec } from "../kit/store.js";
import { mcpServers, rosterMembers, skillRefs, tools } from "./agents.js";
import {
  assertUnique,
  bad,
  type Ctx,
  conflict,
  find,
  idempotent,
  includeArchived,
  listAfterId,
  liveIn,
  replayIfSeen,
  stamp,
  updatedView,
  view,
} from "./common.js";
import { envVarMap } from "./resources.js";
import { tunnelId, vaultIds } from "./sessions.js";

function files(ctx: Ctx, value: unknown): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw bad("files must be a map of file id to {enabled}");
  for (const [id, v] of Object.entries(value)) {
    const f = ctx.state.objects.files.get(id);
    if (!liveIn(f, "forward")) throw bad(`files: file ${id} not found on the Forward API`);
    if (!isObject(v) || typeof v.enabled !== "boolean") throw bad(`files.${id} must be {enabled: boolean}`);
  }
  return value;
}

function managedToolConfig(value: unknown): unknown {
  if (value === null) return null;
  if (
    !isObject(value) ||
    !Array.isArray(value.enabled_tools) ||
    value.enabled_tools.some((t) => typeof t !== "string")
  ) {
    throw bad("managed_tool_config must be {enabled_tools: string[]}");
  }
  return { enabled_tools: value.enabled_tools };
}

/** Forward roster: `{type:"coordinator", agents:[{type:"template", template_id}]}` (shape undetermined upstream). */
function templateRoster(ctx: Ctx, value: unknown, selfId?: string): unknown {
  const members = rosterMembers(value);
  if (members === null) return null;
  const seen = new Set<string>();
  return {
    type: "coordinator",
    agents: members.map((m, i) => {
      const id = isObject(m) ? m.template_id : undefined;
      if (typeof id !== "string") throw bad(`multiagent.agents[${i}] must be {type:"template", template_id}`);
      if (id === selfId) throw bad(`multiagent.agents[${i}]: a template cannot list itself`);
      if (seen.has(id)) throw bad(`multiagent.agents: duplicate member ${id}`);
      seen.add(id);
      const t = ctx.state.objects.templates.get(id);
      if (!t || t.status === "archived") throw bad(`multiagent.agents[${i}]: template ${id} not found`);
      return { type: "template", template_id: id };
    }),
  };
}

/** Template fields present in the body (all required ones on create). Updates merge. */
function templateFields(ctx: Ctx, b: Record<string, unknown>, current?: Rec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const has = (k: string) => !current || b[k] !== undefined;
  if (has("name")) out.name = str(b, "name", true);
  if (has("description")) out.description = str(b, "description") ?? "";
  if (has("model")) out.model = str(b, "model", true);
  if (has("system")) out.system = str(b, "system") ?? "";
  if (has("environment_id")) {
    const env = ctx.state.objects.environments.get(str(b, "environment_id", true)!);
    // Either API's environment (spec: an external environment_id of a Forward agent "may come
    // from either the Managed or the Forward API").
    if (!liveIn(env, "forward") && !liveIn(env, "managed")) {
      throw bad(`environment ${String(b.environment_id)} not found`);
    }
    out.environment_id = env.id;
  }
  if (has("vault_ids")) out.vault_ids = vaultIds(ctx, b.vault_ids, "forward");
  if (has("files")) out.files = files(ctx, b.files);
  if (b.tunnel_id !== undefined || !current) out.tunnel_id = tunnelId(ctx, b.tunnel_id);
  if (has("environment_variables"))
    out.environment_variables = envVarMap(b.environment_variables, "environment_variables");
  if (b.managed_tool_config !== undefined) out.managed_tool_config = managedToolConfig(b.managed_tool_config);
  else if (!current) out.managed_tool_config = { enabled_tools: [] };
  const servers = has("mcp_servers")
    ? mcpServers(b.mcp_servers)
    : (current!.mcp_servers as Record<string, unknown>[]);
  if (has("mcp_servers")) out.mcp_servers = servers;
  if (has("tools")) out.tools = tools(b.tools, servers);
  if (has("skills")) out.skills = skillRefs(ctx, b.skills, "forward");
  if (b.multiagent !== undefined) out.multiagent = templateRoster(ctx, b.multiagent, current?.id);
  else if (!current) out.multiagent = null;
  return out;
}

export function templateRoutes(r: Router, ctx: Ctx): void {
  const templates = () => ctx.state.objects.templates;
  const get = (req: Request) => find(ctx, "templates", req.params.id as string, "template");

  r.post(
    "/templates",
    h((req, res) => {
      if (replayIfSeen(ctx, req, res)) return;
      const b = body(req);
      const fields = templateFields(ctx, b);
      assertUnique(templates().values(), "name", fields.name);
      const metadata = checkMetadata(b.metadata);
      idempotent(ctx, req, res, () =>
        view(
          put(ctx.state, "templates", {
            id: ctx.ids.next("tmpl_"),
            type: "template",
            ...fields,
            metadata,
            status: "active",
            ...stamp(ctx),
            archived_at: null,
          }),
        ),
      );
    }),
  );
  r.get(
    "/templates",
    h((req, res) => {
      const all = includeArchived(req);
      res.json(
        listAfterId(
          ctx,
          req,
          [...templates().values()].filter((t) => all || t.status !== "archived"),
        ),
      );
    }),
  );
  getView(r, "/templates/:id", (req) => get(req));
  r.post(
    "/templates/:id",
    h((req, res) => {
      const rec = get(req);
      if (rec.status === "archived") throw conflict(`template ${rec.id} is archived`, "ALREADY_ARCHIVED");
      const b = body(req);
      const fields = templateFields(ctx, b, rec);
      if (fields.name !== undefined) assertUnique(templates().values(), "name", fields.name, rec.id);
      Object.assign(rec, fields);
      res.json(updatedView(ctx, rec, b.metadata));
    }),
  );
  r.post(
    "/templates/:id/archive",
    h((req, res) => {
      const rec = get(req);
      if (rec.status !== "archived") {
        rec.status = "archived";
        rec.archived_at = ctx.clock.iso();
        rec.updated_at = rec.archived_at;
      }
      res.json(view(rec));
    }),
  );
}
