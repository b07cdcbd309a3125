import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { ForgeHttpError } from "./http.js";

/**
 * The one place a project's full path becomes its numeric id. The controls that bind to ids — a
 * managed masking policy (src/tools/masking.ts) and the project allow-list (./project-scope.ts) —
 * resolve a path here, then treat the call exactly as one naming that id, and the call goes to the
 * forge by the id, so the project checked is the project called.
 *
 * A path is looked up with one forge call (`GET /projects/:url-encoded-path`) made with the
 * caller's own token: a project the caller cannot see does not resolve. The answer is kept per
 * forge and per token holder (a hash of the token, never the token), for TTL_MS, at most MAX_PATHS
 * of them; a failed look-up is not kept. A path can be renamed or transferred: for up to TTL_MS
 * after that, the old path still reaches the project it named (as GitLab's own redirect of an old
 * path does), then it is looked up again and reaches whatever the forge says it names now.
 *
 * A look-up that fails refuses the call (ProjectNotResolved): the forge knows no such project and
 * a project the caller cannot see answer the same refusal, so it reveals nothing of the second.
 */

export const TTL_MS = 60_000;
export const MAX_PATHS = 10_000;

/** A path that could not be turned into an id: the call it was for is refused, not run. */
export class ProjectNotResolved extends Error {
  override name = "ProjectNotResolved";
}

/** Who asks: the forge's REST root and the token the call carries. */
export interface TokenHolder {
  apiUrl: string;
  token: string;
}

/** The one forge call a look-up makes (ForgeApi's, without the allow-list: the list asks this). */
export type Lookup = (path: string) => Promise<{ data: unknown }>;

/** A project reference's numeric id when it is one (`42`, "42"), else undefined (a path). */
export function numericId(ref: string | number): number | undefined {
  const s = String(ref);
  return /^\d+$/.test(s) ? Number(s) : undefined;
}

/** A project as a look-up found it: its id and its full path (lower case). */
export interface Found {
  id: number;
  path: string;
}

export class ProjectIds {
  private readonly cache: LRUCache<string, Found & { until: number }>;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs = TTL_MS,
    max = MAX_PATHS,
  ) {
    this.cache = new LRUCache({ max });
  }

  /** The numeric id of a project named by id (no forge call) or path (./project-ids.ts's look-up). */
  async idOf(ref: string | number, who: TokenHolder, lookup: Lookup, fresh = false): Promise<number> {
    return numericId(ref) ?? (await this.find(ref, who, lookup, fresh)).id;
  }

  /**
   * A project named by id or path, looked up (an id too: the allow-list learns its path so); a
   * young answer is reused unless `fresh`. ProjectNotResolved when the look-up fails.
   */
  async find(ref: string | number, who: TokenHolder, lookup: Lookup, fresh = false): Promise<Found> {
    const name = decodedPath(String(ref));
    const key = `${who.apiUrl}\n${createHash("sha256").update(who.token).digest("base64url")}\n${name.toLowerCase()}`;
    const t = this.now();
    const kept = this.cache.get(key);
    if (kept && kept.until > t && !fresh) return { id: kept.id, path: kept.path };
    let data: unknown;
    try {
      ({ data } = await lookup(`/projects/${encodeURIComponent(name)}`));
    } catch (err) {
      throw new ProjectNotResolved(refusalOf(name, err));
    }
    const p = data as { id?: unknown; path_with_namespace?: unknown } | undefined;
    if (typeof p?.id !== "number" || !Number.isSafeInteger(p.id) || p.id <= 0)
      throw new ProjectNotResolved(refusalOf(name, undefined));
    const found = {
      id: p.id,
      path: typeof p.path_with_namespace === "string" ? p.path_with_namespace.toLowerCase() : "",
    };
    this.cache.set(key, { ...found, until: t + this.ttlMs });
    return found;
  }
}

/** A project reference as the forge reads it: `acme%2Fwidgets` is `acme/widgets` (an id or a plain path as it is). */
export function decodedPath(ref: string): string {
  if (ref.includes("/") || !/%2F/i.test(ref)) return ref;
  try {
    return decodeURIComponent(ref);
  } catch {
    return ref;
  }
}

/**
 * Why a look-up refuses: a forge answer about the project (404, 403, ...) reads the same whether
 * it does not exist or is hidden from the caller; an unreachable or failing forge says so.
 */
function refusalOf(path: string, err: unknown): string {
  const down =
    err instanceof ForgeHttpError && (err.status === 0 || err.status >= 500)
      ? `the forge did not answer the look-up (${err.status === 0 ? err.message : `error ${err.status}`})`
      : undefined;
  return `refused: project ${JSON.stringify(path)} could not be resolved to its numeric id (${
    down ?? "no project of that path is visible to your token"
  }), which the project controls of this server need; the call was not run`;
}
