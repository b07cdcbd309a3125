import type { Router } from "express";
import { AGENT_FIELDS } from "../kit/records.js";
import { parseMcpServers, parseModel, parseMultiagent, parseSkills, parseTools } from "./agent-fields.js";
import { archive, assertNotArchived, deleted, listPage, lookup, param } from "./common.js";
import { ApiError, invalid, notFound } from "./errors.js";
import { pageParams, paginate, queryInt } from "./http.js";
import type { Kit, Obj } from "./state.js";
import {
  allowOnly,
  body,
  checkString,
  createMetadata,
  type JsonObject,
  optString,
  reqString,
  requireObject,
  updateMetadata,
} from "./validate.js";

const FIELDS = [...AGENT_FIELDS, "execution_identity"];

/**
 * `execution_identity` (provider_c; SDK 1.12 declares it required on every agent): the run principal,
 * `{type:"service_account"}` by default or `{type:"aws_role", role_arn}`.
 */
function parseExecutionIdentity(v: unknown): JsonObject {
  if (v === undefined || v === null) return { type: "service_account" };
  const e = requireObject(v, "execution_identity");
  if (e.type === "service_account") {
    allowOnly(e, ["type"], "execution_identity");
    return { type: "service_account" };
  }
  if (e.type === "aws_role") {
    allowOnly(e, ["type", "role_arn"], "execution_identity");
    const arn = checkString(e.role_arn, "execution_identity.role_arn", { min: 1 });
    if (!/^arn:aws[a-z-]*:iam::\d{12}:role\/.+$/.test(arn)) {
      throw invalid(
        "execution_identity.role_arn: expected an IAM role ARN (arn:aws:iam::<account>:role/<name>)",
      );
    }
    return { type: "aws_role", role_arn: arn };
  }
  throw invalid('execution_identity.type: must be "service_account" or "aws_role"');
}

/** Any change to a body field makes a new agent version; a no-op update does not. */
function sameConfig(a: Obj, b: Obj): boolean {
  return FIELDS.every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]));
}

export function agentRoutes(router: Router, kit: Kit): void {
  const archivable = kit.dialect.archivable.has("agent");
  const withIdentity = kit.dialect.name === "provider_c";
  const fields = withIdentity ? FIELDS : FIELDS.filter((f) => f !== "execution_identity");
  const agent = (id: string) => lookup(kit.state().agents, id, "agent");

  function record(a: Obj): void {
    const s = kit.state();
    s.agents.set(a.id, a);
    const history = s.agentVersions.get(a.id) ?? [];
    history.push(structuredClone(a));
    s.agentVersions.set(a.id, history);
  }

  router.post("/agents", (req, res) => {
    const b = body(req.body);
    allowOnly(b, fields);
    const mcpServers = parseMcpServers(b.mcp_servers);
    const now = kit.now();
    const a: Obj = {
      id: kit.newId("agent"),
      type: "agent",
      name: reqString(b, "name", { min: 1, max: 256 }),
      description: optString(b, "description", { max: 2048 }) ?? null,
      model: parseModel(b.model, kit),
      system: optString(b, "system", { max: 100_000 }) ?? null,
      tools: parseTools(b.tools, mcpServers, kit),
      mcp_servers: mcpServers,
      skills: parseSkills(b.skills, kit),
      multiagent: parseMultiagent(b.multiagent, kit),
      metadata: createMetadata(b.metadata),
      ...(withIdentity ? { execution_identity: parseExecutionIdentity(b.execution_identity) } : {}),
      version: 1,
      created_at: now,
      updated_at: now,
    };
    if (archivable) a.archived_at = null;
    record(a);
    res.json(a);
  });

  router.get("/agents", (req, res) => {
    res.json(listPage(kit, req, kit.state().agents.values(), { archivable }));
  });

  router.get("/agents/:id", (req, res) => {
    const a = agent(param(req, "id"));
    const version =
      kit.dialect.name === "provider_c"
        ? queryInt(req.query, "version", 1, Number.MAX_SAFE_INTEGER)
        : undefined;
    if (version === undefined) return void res.json(a);
    const snapshot = kit
      .state()
      .agentVersions.get(a.id)
      ?.find((v) => v.version === version);
    if (!snapshot) throw notFound(`agent ${a.id} version`, String(version));
    res.json(snapshot);
  });

  // Optimistic concurrency: the body carries the version the caller last read; a stale one fails.
  router.post("/agents/:id", (req, res) => {
    const a = agent(param(req, "id"));
    assertNotArchived(a, "agent");
    const b = body(req.body);
    allowOnly(b, [...fields, "version"]);
    if (b.version === undefined || b.version === null) throw invalid("version: Field required");
    if (!Number.isInteger(b.version)) throw invalid("version: expected an integer");
    if (b.version !== a.version) {
      throw new ApiError(
        409,
        "conflict_error",
        `version: agent ${a.id} is at version ${a.version}, the update was based on version ${b.version}`,
        {},
        "VersionConflict",
      );
    }
    const next: Obj = { ...a };
    if (b.name !== undefined) next.name = reqString(b, "name", { min: 1, max: 256 });
    if (b.description !== undefined) next.description = optString(b, "description", { max: 2048 }) ?? null;
    if (b.model !== undefined) next.model = parseModel(b.model, kit);
    if (b.system !== undefined) next.system = optString(b, "system", { max: 100_000 }) ?? null;
    if (b.mcp_servers !== undefined) next.mcp_servers = parseMcpServers(b.mcp_servers);
    if (b.tools !== undefined || b.mcp_servers !== undefined) {
      next.tools = parseTools(
        b.tools === undefined ? (a.tools as JsonObject[]) : b.tools,
        next.mcp_servers,
        kit,
      );
    }
    if (b.skills !== undefined) next.skills = parseSkills(b.skills, kit);
    if (b.multiagent !== undefined) next.multiagent = parseMultiagent(b.multiagent, kit, a.id);
    if (withIdentity && b.execution_identity !== undefined)
      next.execution_identity = parseExecutionIdentity(b.execution_identity);
    next.metadata = updateMetadata(a.metadata, b.metadata, kit.dialect.metadataUpdate);
    if (sameConfig(a, next)) return void res.json(a);
    next.version = a.version + 1;
    next.updated_at = kit.now();
    record(next);
    res.json(next);
  });

  if (kit.dialect.name === "provider_c") {
    router.get("/agents/:id/versions", (req, res) => {
      const a = agent(param(req, "id"));
      const history = kit.state().agentVersions.get(a.id) ?? [];
      res.json(paginate(history, (v) => [v.version], pageParams(req.query, kit.dialect.limits)));
    });
  }

  if (archivable) {
    router.post("/agents/:id/archive", (req, res) => {
      const a = agent(param(req, "id"));
      archive(kit, a);
      const history = kit.state().agentVersions.get(a.id);
      const latest = history?.[history.length - 1];
      if (latest) latest.archived_at = a.archived_at;
      res.json(a);
    });
  }

  if (kit.dialect.agentDelete) {
    router.delete("/agents/:id", (req, res) => {
      const s = kit.state();
      const a = agent(param(req, "id"));
      s.agents.delete(a.id);
      s.agentVersions.delete(a.id);
      res.json(deleted(a.id, "agent"));
    });
  }
}
