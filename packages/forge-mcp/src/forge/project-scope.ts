import { decodedPath, type Found, numericId } from "./project-ids.js";

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
 * The list may hold ids and paths; each entry's id and full path are learnt from the forge through
 * the one resolver (./project-ids.ts: the caller's token, kept per forge and token holder for a
 * short while), so `42`, `acme/widgets` and `acme%2Fwidgets` name the same project. A request's
 * path is matched against the entries' paths (a path on no list is never sent to the forge, not
 * even to look it up), and the request goes to the forge by the id it was checked for
 * (`/projects/acme%2Fwidgets/issues` is sent as `/projects/42/issues`), so a path renamed or
 * transferred meanwhile cannot lead it to a project outside the list. An entry the caller cannot
 * see admits nothing for that caller.
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

/**
 * A project named by id or path, as the caller's look-up finds it (ForgeApi over ./project-ids.ts):
 * its id and full path; `fresh` asks the forge even when a kept answer is young.
 */
export type Resolve = (ref: string, fresh?: boolean) => Promise<Found>;

/**
 * Told of each project reference (id or path) a request names and the numeric id it was checked
 * for and is sent to the forge by: a writing call's audit line names that id (src/tools/define.ts).
 */
export type OnProjectId = (ref: string, id: number) => void;

/** A list's entries as the forge knows them: their ids, and each lower-case path's id. */
interface Known {
  ids: Set<number>;
  paths: Map<string, number>;
}

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

/** One list a project must be on: its entries, and what messages call it. */
interface List {
  label: string;
  entries: string[];
}

export interface ScopeOptions {
  /** ENABLE_STRICT_PROJECT_SCOPE: what reaches past the listed projects is refused (strictRefusal). */
  strict?: boolean;
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

  /**
   * `entries`: GITLAB_ALLOWED_PROJECT_IDS (empty: no list of the operator's, where a request's own
   * list is the only one).
   */
  constructor(entries: string[], opts: ScopeOptions = {}, session?: string[]) {
    this.lists = [
      ...(entries.length > 0 ? [{ label: OPERATOR_LIST, entries }] : []),
      ...(session ? [{ label: SESSION_LIST, entries: session }] : []),
    ];
    this.strict = opts.strict ?? false;
  }

  /**
   * This scope narrowed by a request's X-GitLab-Allowed-Project-Ids (ENABLE_DYNAMIC_PROJECT_SCOPE):
   * a project must then be on both lists, so the request's list never reaches a project the
   * operator's does not. An entry of it outside the operator's list admits nothing.
   */
  narrowedTo(session: string[]): ProjectScope {
    const operator = this.lists.find((l) => l.label === OPERATOR_LIST)?.entries ?? [];
    return new ProjectScope(operator, { strict: this.strict }, session);
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

  async run<R extends ApiResult>(
    req: ForgeRequest,
    send: Send<R>,
    resolve: Resolve,
    onId?: OnProjectId,
  ): Promise<R> {
    if (this.strict) {
      const what = strictRefusal(req);
      if (what)
        throw new ProjectOutsideScope(
          `refused: ${what} would reach past the allowed projects, and ENABLE_STRICT_PROJECT_SCOPE keeps this server to ${this.describe()}; name one of them (project_id) instead`,
        );
    }
    if (req.graphql) {
      // the document goes to the forge by what it names (a path too), so a path is looked up afresh
      const gate = req.gate;
      if (gate && "project" in gate) {
        await this.require(String(gate.project), resolve, true, onId);
        if (gate.target !== undefined) await this.require(String(gate.target), resolve, true, onId);
      } else if (gate && "ownerOf" in gate) {
        const owner = await this.ownerOf(gate.ownerOf, send);
        if (!owner)
          throw new ProjectOutsideScope(
            `the project of ${gate.ownerOf} could not be read, so it cannot be checked against ${this.labels()} (${this.describe()})`,
          );
        await this.require(owner, resolve, true, onId);
      } else if (!gate)
        throw new ProjectOutsideScope(
          `GraphQL is not served while ${this.labels()} restricts the projects (a query can name any project)`,
        );
      return send(req);
    }
    let checked = req;
    const m = /^\/projects\/([^/?#]+)/.exec(req.path);
    if (m) {
      // sent by the id it was checked for, whatever the path names by the time the forge reads it
      const id = await this.require(decodeOnce(m[1]!), resolve, false, onId);
      checked = { ...checked, path: `/projects/${id}${req.path.slice(m[0].length)}` };
    } else if (req.method === "POST" && req.path.replace(/\/+$/, "") === "/projects")
      throw new ProjectOutsideScope(
        `creating a project is refused: it would be outside ${this.labels()} (${this.describe()})`,
      );
    for (const where of ["query", "body"] as const) {
      const fields = req[where];
      for (const [k, v] of Object.entries(fields ?? {}))
        if (PROJECT_FIELD.test(k) && (typeof v === "string" || typeof v === "number")) {
          const id = await this.require(String(v), resolve, false, onId);
          checked = { ...checked, [where]: { ...checked[where], [k]: id } };
        }
    }
    if (m) return send(checked);

    const known = await this.allowedIds(resolve);
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
    const r = await send(checked);
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

  /** The numeric id of a project named by id or path, refused when it is outside a list. */
  idOf(ref: string, resolve: Resolve): Promise<number> {
    return this.require(ref, resolve);
  }

  /**
   * The numeric id of a reference (id or path), refused when it is outside a list. A path is known
   * by a listed project's path; `fresh` (a request that goes to the forge by the path itself)
   * checks with the forge that the path still names that project. `onId` is told of the id admitted.
   */
  private async require(ref: string, resolve: Resolve, fresh = false, onId?: OnProjectId): Promise<number> {
    const given = numericId(ref);
    const path = given === undefined ? pathForm(ref) : undefined;
    let id = given;
    for (const list of this.lists) {
      // an id is checked against the ids (path entries looked up); a path against the paths (all looked up)
      const k = await this.known(list.entries, resolve, path !== undefined);
      const here = path === undefined ? given : k.paths.get(path);
      if (here !== undefined && k.ids.has(here) && (id === undefined || id === here)) {
        id = here;
        continue;
      }
      throw new ProjectOutsideScope(
        `project ${JSON.stringify(ref)} is outside ${list.label}; this server serves only: ${this.describe()}`,
      );
    }
    if (path !== undefined && fresh && (await resolve(ref, true)).id !== id)
      throw new ProjectOutsideScope(
        `project ${JSON.stringify(ref)} was renamed or moved; name it by its id or its new path`,
      );
    onId?.(ref, id!);
    return id!;
  }

  /** The ids on every list (what a list across projects keeps, and where a global search runs). */
  private async allowedIds(resolve: Resolve): Promise<Set<number>> {
    const [first, ...rest] = await Promise.all(this.lists.map((l) => this.known(l.entries, resolve)));
    const ids = new Set(first?.ids);
    for (const k of rest) for (const id of ids) if (!k.ids.has(id)) ids.delete(id);
    return ids;
  }

  /**
   * A list's entries as the forge knows them, looked up in parallel with the caller's token (an id
   * entry only when `paths` are wanted): an id entry counts as listed even when its look-up fails
   * (its path is then unknown); a path entry the caller cannot see admits nothing.
   */
  private async known(entries: string[], resolve: Resolve, paths = false): Promise<Known> {
    const k: Known = { ids: new Set(), paths: new Map() };
    await Promise.all(
      entries.map(async (e) => {
        const id = numericId(e);
        if (id !== undefined) k.ids.add(id);
        if (id !== undefined && !paths) return;
        const found = await resolve(e).catch(() => undefined);
        if (!found || (id !== undefined && found.id !== id)) return;
        k.ids.add(found.id);
        if (found.path) k.paths.set(found.path, found.id);
        if (id === undefined) k.paths.set(pathForm(e), found.id);
      }),
    );
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

/** A project path as compared: lower case, `acme%2Fwidgets` read as `acme/widgets`. */
function pathForm(ref: string): string {
  return decodedPath(ref).toLowerCase();
}

/** A path segment as the forge reads it: percent-decoded once. */
function decodeOnce(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
