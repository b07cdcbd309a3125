import { type ForgeHeaders, ForgeHttpError, forgeFetch, forgeMessage } from "./http.js";
import { ProjectIds } from "./project-ids.js";
import type { ForgeRequest, GraphqlGate, OnProjectId, ProjectScope } from "./project-scope.js";

/** GitLab REST v4 for one caller (one token). Pagination facts come from the x-* headers. */

export interface Page {
  page: number | null;
  per_page: number | null;
  next_page: number | null;
  total: number | null;
  total_pages: number | null;
  /** Keyset pagination (no x-page): the cursor of the next page, from `Link rel="next"`. */
  next_page_token?: string;
}

export interface ApiResult {
  data: unknown;
  page: Page | undefined;
}

export type TokenKind = "bearer" | "job";

type Query = Record<string, string | number | boolean | undefined>;

/** A keyset answer has no x-page; its only navigation is the `page_token` of `Link rel="next"`. */
function keysetPage(h: ForgeHeaders): Page | undefined {
  const next = /<([^>]+)>;\s*rel="next"/.exec(h.get("link") ?? "")?.[1];
  const token = next ? new URL(next).searchParams.get("page_token") : null;
  if (!token) return undefined;
  const perPage = h.get("x-per-page");
  return {
    page: null,
    per_page: perPage ? Number(perPage) : null,
    next_page: null,
    total: null,
    total_pages: null,
    next_page_token: token,
  };
}

/** A 206's window or a 416's size, from Content-Range (`bytes 0-9/120`, `bytes *\/120`). */
function windowOf(r: { status: number; text: string; headers: ForgeHeaders }) {
  const m = /^bytes (?:(\d+)-\d+|\*)\/(\d+|\*)$/.exec(r.headers.get("content-range") ?? "");
  const size = m?.[2] && m[2] !== "*" ? Number(m[2]) : null;
  if (r.status === 416) return { text: "", start: size ?? 0, size, beyond: true };
  return { text: r.text, start: Number(m?.[1] ?? 0), size };
}

const num = (v: string | null) => (v === null || v === "" ? null : Number(v));

/**
 * Project ids are numbers or full paths; paths travel URL-encoded as one segment. "." and ".."
 * (also as %2E) are refused: URL resolution removes them as dot segments, so `project_id: ".."`
 * would reach another API path. No forge object is named that way.
 */
export const enc = (v: string | number) => {
  let s = String(v);
  // a path the caller already URL-encoded (group%2Fproject) names the same project as group/project
  if (!s.includes("/") && /%2F/i.test(s)) {
    try {
      s = decodeURIComponent(s);
    } catch {}
  }
  if (/^(\.|%2e){1,2}$/i.test(s)) throw new Error(`${JSON.stringify(s)} is not a valid id or path`);
  return encodeURIComponent(s);
};

/** The path look-ups of ForgeApis built without a store of their own (one process, one store). */
const SHARED_IDS = new ProjectIds();

export class ForgeApi {
  constructor(
    private readonly apiUrl: string,
    /** A fixed token, or a source that may refresh it (local OAuth). */
    private readonly token: string | (() => Promise<string>),
    private readonly timeoutMs: number,
    /** Told when the forge answers 401: the token is revoked or expired (remote OAuth). */
    private readonly onUnauthorized?: () => void,
    /** GITLAB_ALLOWED_PROJECT_IDS: every call passes through it (./project-scope.ts). */
    private readonly scope?: ProjectScope,
    /**
     * How the token travels: `bearer` (OAuth tokens and personal access tokens) or `job` (a CI/CD
     * job token, which GitLab reads only from the `JOB-TOKEN` header).
     */
    readonly tokenKind: TokenKind = "bearer",
    /** Where a project's path becomes its id (./project-ids.ts); a server passes its own. */
    private readonly ids: ProjectIds = SHARED_IDS,
    /** Told of each project this client turns into the id it calls the forge by (`reporting`). */
    private readonly onProjectId?: OnProjectId,
  ) {}

  /**
   * This client for one call whose audit line names the project it changed: `onProjectId` is told
   * of each project reference turned into a numeric id (by `projectId`, or by the allow-list on
   * the way to the forge), never of a call that reached no id.
   */
  reporting(onProjectId: OnProjectId): ForgeApi {
    return new ForgeApi(
      this.apiUrl,
      this.token,
      this.timeoutMs,
      this.onUnauthorized,
      this.scope,
      this.tokenKind,
      this.ids,
      onProjectId,
    );
  }

  /** Whether a project named by path reaches the forge only by its id (the allow-list is set). */
  get resolvesPaths(): boolean {
    return this.scope !== undefined;
  }

  /**
   * The numeric id of a project named by id or path (./project-ids.ts: looked up with this
   * caller's token, kept for a while). Under an allow-list a path is known only as a listed
   * project's (ProjectOutsideScope otherwise, without asking the forge about it); ProjectNotResolved
   * when the caller cannot see it.
   */
  async projectId(ref: string | number): Promise<number> {
    const id = this.scope
      ? await this.scope.idOf(String(ref), this.find)
      : await this.ids.idOf(ref, await this.who(), this.lookup);
    this.onProjectId?.(String(ref), id);
    return id;
  }

  /** Who asks, for the look-ups' store: this forge and this token (of this kind). */
  private async who() {
    const token = typeof this.token === "string" ? this.token : await this.token();
    return { apiUrl: this.apiUrl, token: `${this.tokenKind}:${token}` };
  }
  private readonly lookup = (path: string) => this.send({ method: "GET", path });
  /** How the allow-list learns a project's id and path: this caller's look-up. */
  private readonly find = async (ref: string, fresh?: boolean) =>
    this.ids.find(ref, await this.who(), this.lookup, fresh);

  get(path: string, query?: Query): Promise<ApiResult> {
    return this.call("GET", path, query);
  }
  post(path: string, body?: Record<string, unknown>): Promise<ApiResult> {
    return this.call("POST", path, undefined, body);
  }
  put(path: string, body?: Record<string, unknown>): Promise<ApiResult> {
    return this.call("PUT", path, undefined, body);
  }
  delete(path: string, query?: Query): Promise<ApiResult> {
    return this.call("DELETE", path, query);
  }
  /**
   * A download: the answer as bytes (`data` is a Buffer), refused with ForgeTooLarge past maxBytes
   * without reading the rest.
   */
  bytes(path: string, maxBytes: number, query?: Query): Promise<ApiResult> {
    const req: ForgeRequest = { method: "GET", path, query, maxBytes };
    return this.scope
      ? this.scope.run(req, (r) => this.send(r), this.find, this.onProjectId)
      : this.send(req);
  }
  /**
   * GitLab's GraphQL endpoint lives at the instance root: `/api/graphql`, next to `/api/v4`. A
   * tool whose fixed document reaches one project, one group, or no project data at all says so
   * in `gate`, so the project allow-list can admit it (./project-scope.ts); without a gate a
   * document may name any project and is refused while the allow-list is set.
   */
  graphql(query: string, variables?: Record<string, unknown>, gate?: GraphqlGate): Promise<ApiResult> {
    return this.call({ method: "POST", path: "", body: { query, variables }, graphql: true, gate });
  }
  /** A multipart upload of one file (`file`), as GitLab's uploads endpoints take it. */
  upload(path: string, filename: string, content: Buffer): Promise<ApiResult> {
    return this.call({ method: "POST", path, upload: { filename, content } });
  }
  /**
   * The raw bytes of an answer, at most maxBytes of them (the rest is never read): `data` is
   * {bytes, truncated, content_type}, or {location} when the forge redirects (not followed here).
   */
  download(path: string, maxBytes: number, query?: Query): Promise<ApiResult> {
    return this.call({ method: "GET", path, query, headBytes: maxBytes });
  }
  /**
   * Bytes start..end (inclusive) of a text, asked with `Range` as GitLab's job logs take it: `data`
   * is {text, start, size} of what came back (the whole text from 0 when the forge ignores Range),
   * or {text: "", start, size} with `beyond: true` when start is past the end (416).
   */
  window(path: string, start: number, end: number): Promise<ApiResult> {
    return this.call({ method: "GET", path, range: { start, end } });
  }
  /** The REST root, to tell a redirect that stays on the API from one that leaves it. */
  get base(): string {
    return this.apiUrl;
  }

  private call(
    method: string | ForgeRequest,
    path = "",
    query?: Query,
    body?: Record<string, unknown>,
  ): Promise<ApiResult> {
    const req: ForgeRequest = typeof method === "string" ? { method, path, query, body } : method;
    return this.scope
      ? this.scope.run(req, (r) => this.send(r), this.find, this.onProjectId)
      : this.send(req);
  }

  private async send({
    method,
    path,
    query,
    body,
    graphql,
    upload,
    maxBytes,
    headBytes,
    range,
  }: ForgeRequest): Promise<ApiResult> {
    const base = graphql ? this.apiUrl.replace(/\/v4\/?$/, "/graphql") : this.apiUrl;
    const u = new URL(base + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
    const token = typeof this.token === "string" ? this.token : await this.token();
    const headers: Record<string, string> =
      this.tokenKind === "job" ? { "job-token": token } : { authorization: `Bearer ${token}` };
    const init: Parameters<typeof forgeFetch>[1] = { method, headers, timeoutMs: this.timeoutMs };
    if (maxBytes !== undefined) {
      init.maxBytes = maxBytes;
      headers.accept = "*/*";
    }
    if (body) {
      headers["content-type"] = "application/json";
      // JSON leaves out a member whose value is undefined, as the forge should not see it
      init.body = JSON.stringify(body);
    }
    if (upload) init.upload = upload;
    if (range) headers.range = `bytes=${range.start}-${range.end}`;
    if (headBytes !== undefined) init.headBytes = headBytes;
    // the URL itself, not its text: undici would parse the text into a URL again
    const r = await forgeFetch(u, init);
    if (r.status === 401) this.onUnauthorized?.();
    if (headBytes !== undefined && r.status >= 300 && r.status < 400 && r.headers.get("location"))
      return { data: { location: new URL(r.headers.get("location")!, u).href }, page: undefined };
    if (r.bytes)
      return {
        data: {
          bytes: r.bytes,
          truncated: r.truncated ?? false,
          content_type: r.headers.get("content-type"),
        },
        page: undefined,
      };
    if (range && (r.status === 206 || r.status === 416)) return { data: windowOf(r), page: undefined };
    if (r.status < 200 || r.status >= 300)
      throw new ForgeHttpError(r.status, forgeMessage(r.status, r.body), r.body);
    if (range) return { data: { text: r.text, start: 0, size: Buffer.byteLength(r.text) }, page: undefined };
    const h = r.headers;
    const page = h.has("x-page")
      ? {
          page: num(h.get("x-page")),
          per_page: num(h.get("x-per-page")),
          next_page: num(h.get("x-next-page")),
          total: num(h.get("x-total")),
          total_pages: num(h.get("x-total-pages")),
        }
      : keysetPage(h);
    return { data: r.body, page };
  }
}
