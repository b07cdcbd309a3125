import { LRUCache } from "lru-cache";

/**
 * GITLAB_ALLOWED_PROJECT_IDS, enforced where every tool's forge call passes (ForgeApi), so no tool
 * — today's or one added later — can reach a project outside the list:
 *
 * - a request naming a project, in its path (`/projects/:id/...`, the id decoded once as the forge
 *   decodes it) or in a query or body field ending in `project_id` (`target_project_id`, ...), must
 *   name an allowed one, by numeric id or full path (any case);
 * - a list across projects (`/projects`, `/issues`, `/groups/:id/projects`, `/todos`, `/events`,
 *   search results, ...) comes back with the items of other projects removed;
 * - a global search for project objects (issues, code, commits, ...) is run in each allowed project
 *   instead of across the instance;
 * - creating a project (it would be outside the list) and GraphQL documents of the caller's own (a
 *   query can name any project) are refused; a tool's own document is admitted for what its gate
 *   says it reaches (GraphqlGate): a listed project, a group, no project data, or a global id
 *   whose project is looked up first and must be listed.
 *
 * The list may hold ids and paths; each entry's other form is learnt from the forge (with the
 * caller's token, cached for RESOLVE_TTL_MS), so `42`, `acme/widgets` and `acme%2Fwidgets` name the
 * same project. A project the caller cannot see stays unresolved, and only its listed form matches.
 *
 * ENABLE_DYNAMIC_PROJECT_SCOPE adds a request's own list (X-GitLab-Allowed-Project-Ids,
 * `narrowedTo`): a project must then be on both, so a request can narrow the operator's list and
 * never widen it. ENABLE_STRICT_PROJECT_SCOPE refuses, before any forge call, what reaches past the
 * listed projects whatever it would answer (strictRefusal): instance-wide search, groups, to-dos.
 */

export class ProjectOutsideScope extends Error {
  override name = "ProjectOutsideScope";
}

type Query = Record<string, string | number | boolean | undefined>;

export interface ForgeRequest {
  method: string;
  path: string;
  query?: Query | undefined;
  body?: Record<string, unknown> | undefined;
  /** A GraphQL document (POST /api/graphql) rather than a REST path. */
  graphql?: boolean;
  /** Read the answer as bytes, at most this many (a download). */
  maxBytes?: number | undefined;
  /** What a tool's fixed GraphQL document reaches (see GraphqlGate). */
  gate?: GraphqlGate | undefined;
  /** A multipart upload of one file. */
  upload?: { filename: string; content: Buffer } | undefined;
  /** A download that keeps the first bytes: at most this many. */
  headBytes?: number | undefined;
  /** A byte window of a text (`Range: bytes=start-end`, both inclusive). */
  range?: { start: number; end: number } | undefined;
}

/**
 * What a tool's own GraphQL document reaches, so the allow-list can admit it: one project (by id
 * or full path), one group (group-level records, no project's), no project data at all (users),
 * or the project that owns a global id (a vulnerability), found by asking the forge first.
 */
export type GraphqlGate =
  | { project: string | number; target?: string | number }
  | { group: string | number }
  | { noProjectData: true }
  | { ownerOf: string };

/** What a forge call answers (ForgeApi's ApiResult, named structurally: api.ts imports this file). */
export interface ApiResult {
  data: unknown;
  page: unknown;
}

export type Send<R extends ApiResult = ApiResult> = (r: ForgeRequest) => Promise<R>;

const RESOLVE_TTL_MS = 5 * 60_000;
/** Search scopes whose results belong to a project: a global search for them is run per project. */
const PROJECT_SEARCH_SCOPES = new Set([
  "issues",
  "merge_requests",
  "milestones",
  "notes",
  "blobs",
  "commits",
  "wiki_blobs",
]);
const PROJECT_FIELD = /(^|_)project_id$/;

interface Resolved {
  id: number | undefined;
  path: string | undefined;
  until: number;
}

/** One list a project must be on: its entries, and what messages call it. */
interface List {
  label: string;
  entries: string[];
}

/** A list's entries in both forms (ids and lower-case paths). */
interface Known {
  ids: Set<number>;
  paths: Set<string>;
}

export interface ScopeOptions {
  /** ENABLE_STRICT_PROJECT_SCOPE: what reaches past the listed projects is refused (strictRefusal). */
  strict?: boolean;
  now?: () => number;
}

const OPERATOR_LIST = "GITLAB_ALLOWED_PROJECT_IDS";
const SESSION_LIST = "X-GitLab-Allowed-Project-Ids";

/**
 * Under ENABLE_STRICT_PROJECT_SCOPE, why a request reaches past the listed projects (undefined
 * when it does not): a search across the instance, a group or anything under one (but the list of
 * a group's projects, which is filtered), namespaces (groups and users by another name), to-do
 * items, and orbit, GitLab's knowledge graph of the whole instance.
 */
function strictRefusal(req: ForgeRequest): string | undefined {
  if (req.graphql) return req.gate && "group" in req.gate ? "a group's records" : undefined;
  const path = req.path.split("?")[0]!.replace(/\/+$/, "");
  if (path === "/search") return "a search across the instance";
  if (req.method === "GET" && /^\/groups\/[^/]+\/projects(\/shared)?$/.test(path)) return undefined;
  if (/^\/groups(\/|$)/.test(path)) return "a group's records";
  if (/^\/namespaces(\/|$)/.test(path)) return "namespaces";
  if (/^\/todos(\/|$)/.test(path)) return "to-do items";
  if (/^\/orbit(\/|$)/.test(path)) return "orbit (the instance's knowledge graph)";
  return undefined;
}

export class ProjectScope {
  private readonly lists: List[];
  private readonly strict: boolean;
  private readonly now: () => number;

  /**
   * `entries`: GITLAB_ALLOWED_PROJECT_IDS (empty: no list of the operator's, where a request's own
   * list is the only one). `resolved` is shared by the scopes narrowed from this one.
   */
  constructor(
    entries: string[],
    opts: ScopeOptions = {},
    // bounded: a request's own list (a header) may name any project the caller sees
    private readonly resolved = new LRUCache<string, Resolved>({ max: 10_000 }),
    session?: string[],
  ) {
    this.lists = [
      ...(entries.length > 0 ? [{ label: OPERATOR_LIST, entries }] : []),
      ...(session ? [{ label: SESSION_LIST, entries: session }] : []),
    ];
    this.strict = opts.strict ?? false;
    this.now = opts.now ?? Date.now;
  }

  /**
   * This scope narrowed by a request's X-GitLab-Allowed-Project-Ids (ENABLE_DYNAMIC_PROJECT_SCOPE):
   * a project must then be on both lists, so the request's list never reaches a project the
   * operator's does not. An entry of it outside the operator's list admits nothing.
   */
  narrowedTo(session: string[]): ProjectScope {
    const operator = this.lists.find((l) => l.label === OPERATOR_LIST)?.entries ?? [];
    return new ProjectScope(operator, { strict: this.strict, now: this.now }, this.resolved, session);
  }

  /** The lists' names, for messages. */
  private labels(): string {
    return this.lists.map((l) => l.label).join(" and ");
  }

  /** The lists as configured, for messages. */
  describe(): string {
    if (this.lists.length === 1 && this.lists[0]!.label === OPERATOR_LIST)
      return this.lists[0]!.entries.join(", ");
    return this.lists.map((l) => `${l.entries.join(", ")} (${l.label})`).join(" and ");
  }

  async run<R extends ApiResult>(req: ForgeRequest, send: Send<R>): Promise<R> {
    if (this.strict) {
      const what = strictRefusal(req);
      if (what)
        throw new ProjectOutsideScope(
          `refused: ${what} would reach past the allowed projects, and ENABLE_STRICT_PROJECT_SCOPE keeps this server to ${this.describe()}; name one of them (project_id) instead`,
        );
    }
    if (req.graphql) {
      const gate = req.gate;
      if (gate && "project" in gate) {
        await this.require(String(gate.project), send);
        if (gate.target !== undefined) await this.require(String(gate.target), send);
      } else if (gate && "ownerOf" in gate) {
        const owner = await this.ownerOf(gate.ownerOf, send);
        if (!owner)
          throw new ProjectOutsideScope(
            `the project of ${gate.ownerOf} could not be read, so it cannot be checked against ${this.labels()} (${this.describe()})`,
          );
        await this.require(owner, send);
      } else if (!gate)
        throw new ProjectOutsideScope(
          `GraphQL is not served while ${this.labels()} restricts the projects (a query can name any project)`,
        );
      return send(req);
    }
    const m = /^\/projects\/([^/?#]+)/.exec(req.path);
    if (m) await this.require(decodeOnce(m[1]!), send);
    else if (req.method === "POST" && req.path.replace(/\/+$/, "") === "/projects")
      throw new ProjectOutsideScope(
        `creating a project is refused: it would be outside ${this.labels()} (${this.describe()})`,
      );
    for (const fields of [req.query, req.body])
      for (const [k, v] of Object.entries(fields ?? {}))
        if (PROJECT_FIELD.test(k) && (typeof v === "string" || typeof v === "number"))
          await this.require(String(v), send);
    if (m) return send(req);

    const known = await this.allowedIds(send);
    const scope = req.query?.scope;
    if (
      req.method === "GET" &&
      req.path === "/search" &&
      typeof scope === "string" &&
      PROJECT_SEARCH_SCOPES.has(scope)
    ) {
      const pages = await Promise.all(
        [...known].map((id) => send({ method: "GET", path: `/projects/${id}/search`, query: req.query })),
      );
      return { data: pages.flatMap((p) => (Array.isArray(p.data) ? p.data : [])), page: undefined } as R;
    }
    const r = await send(req);
    return { ...r, data: this.filter(r.data, known) };
  }

  /** The full path of the project that owns a global id (a vulnerability's), or "" when unseen. */
  private async ownerOf(gid: string, send: Send): Promise<string> {
    const r = await send({
      method: "POST",
      path: "",
      graphql: true,
      body: {
        query: "query($id: VulnerabilityID!) { vulnerability(id: $id) { project { fullPath } } }",
        variables: { id: gid },
      },
    });
    const d = r.data as
      | { data?: { vulnerability?: { project?: { fullPath?: unknown } } | null } }
      | undefined;
    const path = d?.data?.vulnerability?.project?.fullPath;
    return typeof path === "string" ? path : "";
  }

  /** Refuses a reference (numeric id or path, as the forge will read it) outside a list. */
  private async require(ref: string, send: Send): Promise<void> {
    for (const list of this.lists) {
      if (matches(ref, direct(list.entries))) continue;
      if (matches(ref, await this.known(list.entries, send))) continue;
      throw new ProjectOutsideScope(
        `project ${JSON.stringify(ref)} is outside ${list.label}; this server serves only: ${this.describe()}`,
      );
    }
  }

  /** The ids on every list (what a list across projects keeps, and where a global search runs). */
  private async allowedIds(send: Send): Promise<Set<number>> {
    const [first, ...rest] = await Promise.all(this.lists.map((l) => this.known(l.entries, send)));
    const ids = new Set(first?.ids);
    for (const k of rest) for (const id of ids) if (!k.ids.has(id)) ids.delete(id);
    return ids;
  }

  /** A list's entries in both forms, resolving (in parallel, with the caller's token) what is not fresh. */
  private async known(entries: string[], send: Send): Promise<Known> {
    const t = this.now();
    await Promise.all(
      entries.map(async (e) => {
        const r = this.resolved.get(e);
        if (r && r.until > t) return;
        try {
          const got = await send({ method: "GET", path: `/projects/${encodeURIComponent(e)}` });
          const p = got.data as { id?: unknown; path_with_namespace?: unknown };
          if (typeof p.id === "number" && typeof p.path_with_namespace === "string")
            this.resolved.set(e, {
              id: p.id,
              path: p.path_with_namespace.toLowerCase(),
              until: t + RESOLVE_TTL_MS,
            });
        } catch {
          // not visible to this caller (or the forge is down): only the entry's own form matches
        }
      }),
    );
    const k = direct(entries);
    for (const e of entries) {
      const r = this.resolved.get(e);
      if (r?.id !== undefined) k.ids.add(r.id);
      if (r?.path !== undefined) k.paths.add(r.path);
    }
    return k;
  }

  private filter(data: unknown, ids: Set<number>): unknown {
    if (Array.isArray(data)) return data.filter((i) => itemAllowed(i, ids));
    if (data && typeof data === "object") {
      const o = data as Record<string, unknown>;
      const out = { ...o };
      // a group's own project list: its items are projects, whatever fields they carry
      for (const key of ["projects", "shared_projects"])
        if (Array.isArray(o[key]))
          out[key] = (o[key] as Array<{ id?: unknown }>).filter(
            (i) => typeof i?.id === "number" && ids.has(i.id),
          );
      return out;
    }
    return data;
  }
}

function matches(ref: string, k: Known): boolean {
  return /^\d+$/.test(ref) ? k.ids.has(Number(ref)) : k.paths.has(ref.toLowerCase());
}

/** A list's entries as written, without asking the forge. */
function direct(entries: string[]): Known {
  const ids = new Set<number>();
  const paths = new Set<string>();
  for (const e of entries) {
    if (/^\d+$/.test(e)) ids.add(Number(e));
    else paths.add(e.toLowerCase());
  }
  return { ids, paths };
}

function itemAllowed(item: unknown, ids: Set<number>): boolean {
  if (!item || typeof item !== "object") return true;
  const o = item as Record<string, unknown>;
  // a project (it has a full path): its own id
  if (typeof o.path_with_namespace === "string") return typeof o.id === "number" && ids.has(o.id);
  if (typeof o.project_id === "number") return ids.has(o.project_id);
  const p = o.project as { id?: unknown } | undefined;
  if (p && typeof p === "object" && typeof p.id === "number") return ids.has(p.id);
  return true; // users, groups, namespaces: not a project's
}

/** A path segment as the forge reads it: percent-decoded once. */
function decodeOnce(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
