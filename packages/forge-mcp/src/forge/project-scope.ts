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

export class ProjectScope {
  private readonly resolved = new Map<string, Resolved>();

  constructor(
    private readonly entries: string[],
    private readonly now: () => number = Date.now,
  ) {}

  /** The list as configured, for messages. */
  describe(): string {
    return this.entries.join(", ");
  }

  async run<R extends ApiResult>(req: ForgeRequest, send: Send<R>): Promise<R> {
    if (req.graphql) {
      const gate = req.gate;
      if (gate && "project" in gate) {
        await this.require(String(gate.project), send);
        if (gate.target !== undefined) await this.require(String(gate.target), send);
      } else if (gate && "ownerOf" in gate) {
        const owner = await this.ownerOf(gate.ownerOf, send);
        if (!owner)
          throw new ProjectOutsideScope(
            `the project of ${gate.ownerOf} could not be read, so it cannot be checked against GITLAB_ALLOWED_PROJECT_IDS (${this.describe()})`,
          );
        await this.require(owner, send);
      } else if (!gate)
        throw new ProjectOutsideScope(
          "GraphQL is not served while GITLAB_ALLOWED_PROJECT_IDS restricts the projects (a query can name any project)",
        );
      return send(req);
    }
    const m = /^\/projects\/([^/?#]+)/.exec(req.path);
    if (m) await this.require(decodeOnce(m[1]!), send);
    else if (req.method === "POST" && req.path.replace(/\/+$/, "") === "/projects")
      throw new ProjectOutsideScope(
        `creating a project is refused: it would be outside GITLAB_ALLOWED_PROJECT_IDS (${this.describe()})`,
      );
    for (const fields of [req.query, req.body])
      for (const [k, v] of Object.entries(fields ?? {}))
        if (PROJECT_FIELD.test(k) && (typeof v === "string" || typeof v === "number"))
          await this.require(String(v), send);
    if (m) return send(req);

    const known = await this.known(send);
    const scope = req.query?.scope;
    if (
      req.method === "GET" &&
      req.path === "/search" &&
      typeof scope === "string" &&
      PROJECT_SEARCH_SCOPES.has(scope)
    ) {
      const ids = [...known.ids];
      const pages = await Promise.all(
        ids.map((id) => send({ method: "GET", path: `/projects/${id}/search`, query: req.query })),
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

  /** Refuses a reference (numeric id or path, as the forge will read it) outside the list. */
  private async require(ref: string, send: Send): Promise<void> {
    if (this.matches(ref, this.direct())) return;
    if (this.matches(ref, await this.known(send))) return;
    throw new ProjectOutsideScope(
      `project ${JSON.stringify(ref)} is outside GITLAB_ALLOWED_PROJECT_IDS; this server serves only: ${this.describe()}`,
    );
  }

  private matches(ref: string, k: { ids: Set<number>; paths: Set<string> }): boolean {
    return /^\d+$/.test(ref) ? k.ids.has(Number(ref)) : k.paths.has(ref.toLowerCase());
  }

  /** The entries as written, without asking the forge. */
  private direct() {
    const ids = new Set<number>();
    const paths = new Set<string>();
    for (const e of this.entries) {
      if (/^\d+$/.test(e)) ids.add(Number(e));
      else paths.add(e.toLowerCase());
    }
    return { ids, paths };
  }

  /** The entries in both forms, resolving (in parallel, with the caller's token) what is not fresh. */
  private async known(send: Send) {
    const t = this.now();
    await Promise.all(
      this.entries.map(async (e) => {
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
    const k = this.direct();
    for (const e of this.entries) {
      const r = this.resolved.get(e);
      if (r?.id !== undefined) k.ids.add(r.id);
      if (r?.path !== undefined) k.paths.add(r.path);
    }
    return k;
  }

  private itemAllowed(item: unknown, k: { ids: Set<number>; paths: Set<string> }): boolean {
    if (!item || typeof item !== "object") return true;
    const o = item as Record<string, unknown>;
    // a project (it has a full path): its own id
    if (typeof o.path_with_namespace === "string") return typeof o.id === "number" && k.ids.has(o.id);
    if (typeof o.project_id === "number") return k.ids.has(o.project_id);
    const p = o.project as { id?: unknown } | undefined;
    if (p && typeof p === "object" && typeof p.id === "number") return k.ids.has(p.id);
    return true; // users, groups, namespaces: not a project's
  }

  private filter(data: unknown, k: { ids: Set<number>; paths: Set<string> }): unknown {
    if (Array.isArray(data)) return data.filter((i) => this.itemAllowed(i, k));
    if (data && typeof data === "object") {
      const o = data as Record<string, unknown>;
      const out = { ...o };
      // a group's own project list: its items are projects, whatever fields they carry
      for (const key of ["projects", "shared_projects"])
        if (Array.isArray(o[key]))
          out[key] = (o[key] as Array<{ id?: unknown }>).filter(
            (i) => typeof i?.id === "number" && k.ids.has(i.id),
          );
      return out;
    }
    return data;
  }
}

/** A path segment as the forge reads it: percent-decoded once. */
function decodeOnce(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
