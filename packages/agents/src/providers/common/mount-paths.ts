// Mount path rules shared by every provider (spec: "Session resources"): a relative path resolves
// under the provider's mount root, an absolute path must already be under that root and is passed
// through unchanged; a mismatching absolute path is rejected, never rewritten.
import { posix } from "node:path";
import { DeclarationError } from "./errors.js";

export function normalizeMountPath(root: string, path: string): string {
  const trimmed = path.trim();
  if (trimmed === "")
    throw new DeclarationError("common.mount_path_empty", `mount path is empty; give a path under ${root}/`);
  if (trimmed.startsWith("/")) {
    const normalized = posix.normalize(trimmed);
    if (normalized !== trimmed || !trimmed.startsWith(`${root}/`) || trimmed.length <= root.length + 1) {
      throw new DeclarationError(
        "common.mount_path_outside_root",
        `mount path "${path}" is not under ${root}/; use a relative path or an absolute path starting with ${root}/`,
      );
    }
    return trimmed;
  }
  const joined = posix.normalize(posix.join(root, trimmed));
  if (!joined.startsWith(`${root}/`)) {
    throw new DeclarationError(
      "common.mount_path_escapes_root",
      `mount path "${path}" escapes ${root}/; remove the ".." segments`,
    );
  }
  return joined;
}

/**
 * `https://host/org/repo.git` → `repo`; also accepts `git@host:org/repo.git`. A URL whose last
 * segment is empty (`https://host/org/.git`) mounts as `repository`, as on the managed dialect and
 * as validate places it when it checks that mount paths are unique (config/rules/mounts.ts).
 */
export function repositoryName(url: string): string {
  const withoutQuery = url.replace(/[?#].*$/, "").replace(/\/+$/, "");
  const last = withoutQuery.split(/[/:]/).pop() ?? "";
  return last.replace(/\.git$/i, "") || "repository";
}

/** Mount path of a repository resource: the declared one (validated) or `<root>/workspace/<repo>`. */
export function repositoryMountPath(root: string, url: string, mountPath?: string): string {
  return mountPath === undefined
    ? `${root}/workspace/${repositoryName(url)}`
    : normalizeMountPath(root, mountPath);
}

/** Mount paths of one session or deployment must be unique. */
export function assertUniqueMountPaths(paths: string[]): void {
  const seen = new Set<string>();
  for (const p of paths) {
    if (seen.has(p))
      throw new DeclarationError(
        "common.mount_path_twice",
        `mount path "${p}" is used twice; give each resource its own path`,
      );
    seen.add(p);
  }
}
