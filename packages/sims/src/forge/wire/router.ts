import type { Express, IRouter, Request, RequestHandler, Response } from "express";

/**
 * Routes by GitLab resource. Each resource file registers its routes on a `Routes` recorder with the
 * path as GitLab's API docs write it (`/projects/:id/milestones/:milestone_id`, under `/api/v4`), and
 * `mountResources` installs them all ranked by specificity, so which route answers a path never
 * depends on the order files are listed in: at the first segment where two routes differ, a literal
 * segment beats a `:param`, which beats a `*wildcard`. Two routes that could match one path without
 * one of them being the more specific everywhere are refused at start-up (see `ambiguousPairs`).
 */
export type Routes = Pick<IRouter, "get" | "post" | "put" | "delete">;

export type Verb = "get" | "post" | "put" | "delete";

export interface Route {
  method: Verb;
  path: string;
  handlers: RequestHandler[];
  /** The resource (mount function) that registered the route, for error messages. */
  resource: string;
}

/** One GitLab resource: registers its routes; its function name names it in errors. */
export type Resource<C> = (r: Routes, ctx: C) => void;

const VERBS: Verb[] = ["get", "post", "put", "delete"];

/** Collects the routes each resource registers, in the order given. */
export function collectRoutes<C>(resources: Resource<C>[], ctx: C): Route[] {
  const out: Route[] = [];
  for (const resource of resources) {
    const r = Object.fromEntries(
      VERBS.map((method) => [
        method,
        (path: string | string[], ...handlers: RequestHandler[]) => {
          for (const p of [path].flat()) out.push({ method, path: p, handlers, resource: resource.name });
        },
      ]),
    ) as unknown as Routes;
    resource(r, ctx);
  }
  return out;
}

type Kind = 0 | 1 | 2;
const segments = (path: string) => path.split("/").filter(Boolean);
const kind = (segment: string): Kind => (segment.startsWith("*") ? 2 : segment.startsWith(":") ? 1 : 0);

/** Whether some concrete path matches both patterns (`:p` is one segment, `*w` one or more). */
export function overlap(a: string[], b: string[]): boolean {
  if (!a.length || !b.length) return !a.length && !b.length;
  const [x, ...ra] = a as [string, ...string[]];
  const [y, ...rb] = b as [string, ...string[]];
  if (kind(y) === 2 && kind(x) !== 2) return overlap(b, a);
  // a wildcard takes the other's first segment, and maybe more of them
  if (kind(x) === 2) return overlap(ra, rb) || overlap(a, rb) || (kind(y) === 2 && overlap(ra, b));
  if (kind(x) === 0 && kind(y) === 0 && x !== y) return false;
  return overlap(ra, rb);
}

/**
 * Negative when `a` ranks before `b`: at the first segment whose kind differs, the lower kind wins
 * (literal, then parameter, then wildcard); on a tie the shorter path first.
 */
export function rank(a: string, b: string): number {
  const sa = segments(a);
  const sb = segments(b);
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const d = kind(sa[i]!) - kind(sb[i]!);
    if (d) return d;
  }
  return sa.length - sb.length;
}

/** `a` is at least as specific as `b` at every segment they share, and more specific at one. */
function dominates(a: string[], b: string[]): boolean {
  let strict = false;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const d = kind(a[i]!) - kind(b[i]!);
    if (d > 0) return false;
    if (d < 0) strict = true;
  }
  return strict;
}

/** Pairs of routes of one method that can match one path with neither the more specific. */
export function ambiguousPairs(routes: Route[]): [Route, Route][] {
  const out: [Route, Route][] = [];
  for (let i = 0; i < routes.length; i++) {
    for (let j = i + 1; j < routes.length; j++) {
      const a = routes[i]!;
      const b = routes[j]!;
      if (a.method !== b.method) continue;
      const sa = segments(a.path);
      const sb = segments(b.path);
      if (overlap(sa, sb) && !dominates(sa, sb) && !dominates(sb, sa)) out.push([a, b]);
    }
  }
  return out;
}

/** Installs every resource's routes under `prefix`, the most specific first. */
export function mountResources<C>(app: Express, prefix: string, resources: Resource<C>[], ctx: C): Route[] {
  const routes = collectRoutes(resources, ctx);
  const clash = ambiguousPairs(routes)[0];
  if (clash) {
    const [a, b] = clash;
    throw new Error(
      `ambiguous routes: ${a.method.toUpperCase()} ${a.path} (${a.resource}) and ${b.path} (${b.resource})`,
    );
  }
  const ranked = [...routes].sort((a, b) => rank(a.path, b.path));
  for (const { method, path, handlers } of ranked) app[method](`${prefix}${path}`, ...handlers);
  return ranked;
}

/** Resolves the owner a request's path names, or answers the request (404, 403, ...) and gives null. */
export type OwnerOf<O> = (req: Request, res: Response) => O | null;
export type OwnedHandler<O> = (owner: O, req: Request, res: Response) => void;
export type Twins<O> = Record<Verb, (paths: readonly string[], handler: OwnedHandler<O>) => void>;

/**
 * Routes GitLab serves alike under several parents (a project's and a group's milestones, wikis,
 * hooks and variables; an issue's and a merge request's notes): each is written once, with its full
 * path under every parent in the order of `owners`, and its handler gets the owner that parent's
 * resolver found, resolved once before the handler runs.
 */
export function twins<O>(r: Routes, owners: readonly OwnerOf<O>[]): Twins<O> {
  const verb =
    (method: Verb) =>
    (paths: readonly string[], handler: OwnedHandler<O>): void => {
      if (paths.length !== owners.length)
        throw new Error(`${paths.join(", ")}: one path per owner (${owners.length})`);
      paths.forEach((path, i) => {
        const ownerOf = owners[i]!;
        (r[method] as (p: string, h: RequestHandler) => void)(path, (req, res) => {
          const owner = ownerOf(req, res);
          if (owner !== null) handler(owner, req, res);
        });
      });
    };
  return { get: verb("get"), post: verb("post"), put: verb("put"), delete: verb("delete") };
}
