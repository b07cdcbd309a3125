import type { Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { canReadProject, canSeeGroup, groupFullPath, projectFullPath, requireUser } from "../model/access.js";
import type { ForgeState, ForgeUser } from "../model/state.js";
import { params } from "../wire/params.js";
import type { Routes } from "../wire/router.js";
import { canSeeIssue } from "./issues.js";

/**
 * GitLab's knowledge graph ("Orbit", `/api/v4/orbit/*`, experimental): user-scoped, not
 * project-scoped. The simulator's graph is built on each request from its own records the caller
 * may read: groups, projects, users, issues, merge requests and pipelines, with the edges between
 * them. Queries use Orbit's JSON shape (`query_type`, `node` or `nodes` with `id`, `entity`,
 * `node_ids`, `filters`, `columns`, `relationships`, `limit`); `traversal` and `neighbors` are
 * answered, `aggregation` and `path_finding` are refused as this forge does not have them.
 */

type Row = Record<string, unknown> & { id: number };
interface Graph {
  nodes: Map<string, Row[]>;
  edges: Array<{ type: string; from: string; to: string }>;
}

/** The node types with the properties a query may filter on and ask for. */
const NODES: Record<string, { domain: string; properties: string[] }> = {
  Group: { domain: "core", properties: ["id", "full_path", "name", "visibility"] },
  Project: { domain: "core", properties: ["id", "full_path", "name", "visibility", "archived"] },
  User: { domain: "core", properties: ["id", "username", "name", "state"] },
  Issue: { domain: "plan", properties: ["id", "iid", "project_id", "title", "state", "confidential"] },
  MergeRequest: {
    domain: "code_review",
    properties: ["id", "iid", "project_id", "title", "state", "source_branch", "target_branch", "draft"],
  },
  Pipeline: { domain: "ci", properties: ["id", "iid", "project_id", "sha", "ref", "status", "source"] },
};
const EDGES = [
  { name: "CONTAINS", from: "Group", to: "Group" },
  { name: "CONTAINS", from: "Group", to: "Project" },
  { name: "HAS_ISSUE", from: "Project", to: "Issue" },
  { name: "HAS_MERGE_REQUEST", from: "Project", to: "MergeRequest" },
  { name: "HAS_PIPELINE", from: "Project", to: "Pipeline" },
  { name: "AUTHORED", from: "User", to: "Issue" },
  { name: "AUTHORED", from: "User", to: "MergeRequest" },
  { name: "ASSIGNED", from: "User", to: "Issue" },
  { name: "REVIEWS", from: "User", to: "MergeRequest" },
];
const key = (entity: string, id: number) => `${entity}:${id}`;
const MAX_LIMIT = 1000;

/** A record as a node of its type: the properties the type names, read off the record. */
const node = (entity: string, record: object): Row =>
  Object.fromEntries(
    NODES[entity]!.properties.map((k) => [k, (record as Record<string, unknown>)[k]]),
  ) as Row;

function buildGraph(state: ForgeState, user: ForgeUser): Graph {
  const groups = state.groups.filter((g) => canSeeGroup(state, user, g));
  const projects = state.projects.filter((p) => canReadProject(state, user, p));
  const readable = new Set(projects.map((p) => p.id));
  const issues = state.issues.filter((i) => readable.has(i.project_id) && canSeeIssue(state, i, user));
  const mrs = state.mergeRequests.filter((m) => readable.has(m.project_id));
  const pipelines = state.pipelines.filter((p) => readable.has(p.project_id));
  const edges: Graph["edges"] = [];
  const edge = (type: string, from: string, to: string) => edges.push({ type, from, to });
  for (const g of groups)
    if (g.parent_id !== null) edge("CONTAINS", key("Group", g.parent_id), key("Group", g.id));
  for (const p of projects)
    if (p.namespace.kind === "group") edge("CONTAINS", key("Group", p.namespace.id), key("Project", p.id));
  for (const i of issues) {
    edge("HAS_ISSUE", key("Project", i.project_id), key("Issue", i.id));
    edge("AUTHORED", key("User", i.author_id), key("Issue", i.id));
    for (const a of i.assignee_ids) edge("ASSIGNED", key("User", a), key("Issue", i.id));
  }
  for (const m of mrs) {
    edge("HAS_MERGE_REQUEST", key("Project", m.project_id), key("MergeRequest", m.id));
    edge("AUTHORED", key("User", m.author_id), key("MergeRequest", m.id));
    for (const r of m.reviewer_ids) edge("REVIEWS", key("User", r), key("MergeRequest", m.id));
  }
  for (const p of pipelines) edge("HAS_PIPELINE", key("Project", p.project_id), key("Pipeline", p.id));
  return {
    nodes: new Map<string, Row[]>([
      [
        "Group",
        groups.map((g) => ({
          id: g.id,
          full_path: groupFullPath(state, g),
          name: g.name,
          visibility: g.visibility,
        })),
      ],
      [
        "Project",
        projects.map((p) => ({
          id: p.id,
          full_path: projectFullPath(state, p),
          name: p.name,
          visibility: p.visibility,
          archived: p.archived,
        })),
      ],
      ["User", state.users.map((u) => node("User", u))],
      ["Issue", issues.map((i) => node("Issue", i))],
      ["MergeRequest", mrs.map((m) => node("MergeRequest", m))],
      ["Pipeline", pipelines.map((p) => node("Pipeline", p))],
    ]),
    edges,
  };
}

class QueryError extends Error {}

interface Selector {
  id: string;
  entity: string;
  node_ids?: number[];
  filters?: Record<string, unknown>;
  columns?: string[];
}

function selector(raw: unknown, where: string): Selector {
  const s = raw as Record<string, unknown> | null;
  if (!s || typeof s !== "object") throw new QueryError(`${where} must be an object`);
  const entity = String(s.entity ?? "");
  const props = NODES[entity]?.properties;
  if (!props) throw new QueryError(`${where}.entity: unknown entity ${JSON.stringify(s.entity)}`);
  const columns = s.columns === undefined ? undefined : ([] as unknown[]).concat(s.columns).map(String);
  for (const c of columns ?? [])
    if (!props.includes(c)) throw new QueryError(`${where}.columns: ${entity} has no property ${c}`);
  const filters = (s.filters ?? undefined) as Record<string, unknown> | undefined;
  for (const f of Object.keys(filters ?? {}))
    if (!props.includes(f)) throw new QueryError(`${where}.filters: ${entity} has no property ${f}`);
  return {
    id: typeof s.id === "string" && s.id ? s.id : entity.toLowerCase(),
    entity,
    ...(Array.isArray(s.node_ids) ? { node_ids: s.node_ids.map(Number) } : {}),
    ...(filters ? { filters } : {}),
    ...(columns ? { columns } : {}),
  };
}

/** A filter is a value (equality) or `{op, value}` with op eq, ne, in, contains, gt, gte, lt, lte. */
function matches(row: Row, filters: Record<string, unknown> | undefined): boolean {
  return Object.entries(filters ?? {}).every(([prop, f]) => {
    const v = row[prop];
    if (f === null || typeof f !== "object" || Array.isArray(f))
      return Array.isArray(f) ? f.includes(v) : v === f;
    const { op = "eq", value } = f as { op?: string; value?: unknown };
    switch (op) {
      case "eq":
        return v === value;
      case "ne":
        return v !== value;
      case "in":
        return Array.isArray(value) && value.includes(v);
      case "contains":
        return typeof v === "string" && v.toLowerCase().includes(String(value).toLowerCase());
      case "gt":
        return (v as number) > (value as number);
      case "gte":
        return (v as number) >= (value as number);
      case "lt":
        return (v as number) < (value as number);
      case "lte":
        return (v as number) <= (value as number);
      default:
        throw new QueryError(`filters.${prop}: unknown op ${op}`);
    }
  });
}

const candidates = (g: Graph, s: Selector) =>
  (g.nodes.get(s.entity) ?? []).filter(
    (r) => (!s.node_ids || s.node_ids.includes(r.id)) && matches(r, s.filters),
  );

const shown = (s: Selector, r: Row) => ({
  entity: s.entity,
  id: r.id,
  ...Object.fromEntries((s.columns ?? []).map((c) => [c, r[c]])),
});

/** Runs a query: its rows, each a map from a selector's id to the node it bound. */
function run(g: Graph, q: Record<string, unknown>): { columns: string[]; rows: Record<string, unknown>[] } {
  const limit = q.limit === undefined ? 20 : Number(q.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw new QueryError(`limit must be an integer from 1 to ${MAX_LIMIT}`);
  if (q.node !== undefined && q.nodes !== undefined) throw new QueryError("give node or nodes, not both");
  const type = q.query_type;
  if (type === "aggregation" || type === "path_finding")
    throw new QueryError(`query_type ${type} is not available on this forge`);
  if (type === "neighbors") {
    const s = selector(q.node, "node");
    const [start] = candidates(g, s);
    if (!s.node_ids?.length || !start) throw new QueryError("neighbors needs node.node_ids naming one node");
    const opts = (q.neighbors ?? {}) as { direction?: string; rel_types?: string[] };
    const dir = opts.direction ?? "both";
    const here = key(s.entity, start.id);
    const rows: Record<string, unknown>[] = [];
    for (const e of g.edges) {
      if (opts.rel_types && !opts.rel_types.includes(e.type)) continue;
      const other =
        (dir !== "incoming" && e.from === here && e.to) || (dir !== "outgoing" && e.to === here && e.from);
      if (!other) continue;
      const [entity, id] = other.split(":") as [string, string];
      const row = g.nodes.get(entity)?.find((r) => r.id === Number(id));
      if (!row) continue;
      rows.push({
        [s.id]: shown(s, start),
        neighbor: { entity, ...row },
        relationship: { type: e.type, direction: e.from === here ? "outgoing" : "incoming" },
      });
    }
    return { columns: [s.id, "neighbor", "relationship"], rows: rows.slice(0, limit) };
  }
  if (type !== "traversal")
    throw new QueryError("query_type must be traversal, aggregation, path_finding or neighbors");
  const sels =
    q.node !== undefined
      ? [selector(q.node, "node")]
      : ((q.nodes as unknown[]) ?? []).map((n, i) => selector(n, `nodes[${i}]`));
  if (!sels.length) throw new QueryError("a traversal needs node or nodes");
  const byId = new Map(sels.map((s) => [s.id, s]));
  const pool = new Map(sels.map((s) => [s.id, candidates(g, s)]));
  let rows: Array<Record<string, Row>> = pool.get(sels[0]!.id)!.map((r) => ({ [sels[0]!.id]: r }));
  for (const [i, raw] of ((q.relationships as unknown[]) ?? []).entries()) {
    const rel = raw as { type?: string; from?: string; to?: string };
    const from = byId.get(String(rel.from));
    const to = byId.get(String(rel.to));
    if (!from || !to) throw new QueryError(`relationships[${i}]: from and to must name node ids`);
    const linked = (a: Row, b: Row) =>
      g.edges.some(
        (e) =>
          (!rel.type || e.type === rel.type) &&
          e.from === key(from.entity, a.id) &&
          e.to === key(to.entity, b.id),
      );
    const next: Array<Record<string, Row>> = [];
    for (const row of rows) {
      const a = row[from.id];
      const b = row[to.id];
      if (a && b) {
        if (linked(a, b)) next.push(row);
      } else if (a) {
        for (const c of pool.get(to.id)!) if (linked(a, c)) next.push({ ...row, [to.id]: c });
      } else if (b) {
        for (const c of pool.get(from.id)!) if (linked(c, b)) next.push({ ...row, [from.id]: c });
      } else throw new QueryError(`relationships[${i}]: neither ${from.id} nor ${to.id} is bound yet`);
    }
    rows = next;
  }
  const bound = sels.filter((s) => rows.every((r) => r[s.id]));
  return {
    columns: bound.map((s) => s.id),
    rows: rows.slice(0, limit).map((r) => Object.fromEntries(bound.map((s) => [s.id, shown(s, r[s.id]!)]))),
  };
}

/** The compact text format (`llm`): a header line, then one line per row. */
function llmText(type: string, result: { columns: string[]; rows: Record<string, unknown>[] }): string {
  const lines = [`@header query_type=${type} rows=${result.rows.length} columns=${result.columns.join(",")}`];
  for (const r of result.rows)
    lines.push(
      result.columns
        .map((c) =>
          Object.entries(r[c] as Record<string, unknown>)
            .map(([k, v]) => `${k}=${typeof v === "string" ? JSON.stringify(v) : String(v)}`)
            .join(" "),
        )
        .join(" | "),
    );
  return `${lines.join("\n")}\n`;
}

const TOOLS = [
  { name: "query_graph", description: "Run an Orbit query (JSON DSL) over the knowledge graph" },
  { name: "get_graph_schema", description: "The node and edge types of the knowledge graph" },
];

export function orbitRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const graphFor = (res: Response) => {
    const me = requireUser(res);
    return me ? buildGraph(ctx.state, me) : null;
  };

  r.get("/orbit/schema", (_req, res) => {
    if (!requireUser(res)) return;
    res.json({
      nodes: Object.entries(NODES).map(([name, n]) => ({ name, domain: n.domain, properties: n.properties })),
      edges: EDGES,
    });
  });

  r.get("/orbit/status", (_req, res) => {
    const g = graphFor(res);
    if (!g) return;
    res.json({
      status: "ready",
      // the index is as new as the newest record it holds
      indexed_at:
        [...ctx.state.issues, ...ctx.state.mergeRequests, ...ctx.state.pipelines]
          .map((r) => r.updated_at)
          .sort()
          .at(-1) ?? null,
      node_counts: Object.fromEntries([...g.nodes].map(([k, v]) => [k, v.length])),
      edge_count: g.edges.length,
    });
  });

  r.get("/orbit/tools", (_req, res) => {
    if (!requireUser(res)) return;
    res.json({ tools: TOOLS });
  });

  r.post("/orbit/query", (req, res) => {
    const g = graphFor(res);
    if (!g) return;
    const p = params(req);
    const q = p.query as Record<string, unknown> | undefined;
    if (!q || typeof q !== "object" || Array.isArray(q))
      return void res.status(400).json({ error: "query is missing" });
    const format = p.format ?? p.response_format ?? "llm";
    if (format !== "llm" && format !== "raw")
      return void res.status(400).json({ error: "format does not have a valid value" });
    try {
      const result = run(g, q);
      if (format === "raw")
        return void res.json({ query_type: q.query_type, row_count: result.rows.length, ...result });
      res
        .status(200)
        .type("text/plain")
        .send(llmText(String(q.query_type), result));
    } catch (err) {
      if (!(err instanceof QueryError)) throw err;
      res.status(400).json({ error: err.message });
    }
  });
}
