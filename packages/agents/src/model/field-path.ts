// Field paths name a place inside a spec: dot-separated keys, `*` for any key or array index
// (e.g. `credentials.*.access_token`). Handlers declare sensitive and replace-forcing fields
// this way, so the core can treat every kind alike.

export type PathSegment = string | number;

export function formatPath(path: PathSegment[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? segment : `.${segment}`;
  }
  return out;
}

/**
 * Patterns split once: they are the handlers' fixed lists, matched against every field of every
 * resource a plan hashes and compares.
 */
const splitPatterns = new Map<string, string[]>();

/** True when `path` lies at or under a place named by `pattern`. */
function pathMatches(pattern: string, path: PathSegment[]): boolean {
  let parts = splitPatterns.get(pattern);
  if (!parts) {
    parts = pattern.split(".");
    splitPatterns.set(pattern, parts);
  }
  if (path.length < parts.length) return false;
  for (let i = 0; i < parts.length; i++) if (parts[i] !== "*" && parts[i] !== String(path[i])) return false;
  return true;
}

export function matchesAny(patterns: readonly string[] | undefined, path: PathSegment[]): boolean {
  if (!patterns) return false;
  for (const pattern of patterns) if (pathMatches(pattern, path)) return true;
  return false;
}

/** Maps every leaf (and every sensitive subtree as a whole) through `fn`, returning a copy. */
export function mapSensitive(
  value: unknown,
  patterns: readonly string[] | undefined,
  fn: (secret: unknown) => unknown,
  path: PathSegment[] = [],
): unknown {
  return mapAt(value, patterns, fn, [...path]);
}

/** mapSensitive over one path that grows and shrinks as the walk goes (no array per node). */
function mapAt(
  value: unknown,
  patterns: readonly string[] | undefined,
  fn: (secret: unknown) => unknown,
  path: PathSegment[],
): unknown {
  if (path.length > 0 && matchesAny(patterns, path)) return value === undefined ? undefined : fn(value);
  if (!patterns?.length) return value;
  if (Array.isArray(value))
    return value.map((item, i) => {
      path.push(i);
      const mapped = mapAt(item, patterns, fn, path);
      path.pop();
      return mapped;
    });
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      path.push(k);
      out[k] = mapAt(v, patterns, fn, path);
      path.pop();
    }
    return out;
  }
  return value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
