import { posix } from "node:path";
import type { ProviderCapabilities } from "../../model/capabilities.js";
import type { Path } from "../source.js";
import type { RuleContext } from "./context.js";

/**
 * A relative mount path is placed under the provider's root; an absolute one must already be
 * under it (it is passed through, never rewritten).
 */
export function normalizeMountPath(value: string, caps: ProviderCapabilities): string | null {
  const root = caps.mountRoot;
  // A relative path that climbs out of the root with `..` is as wrong as a foreign absolute one.
  if (!value.startsWith("/")) {
    const joined = posix.join(root, value);
    return joined.startsWith(`${root}/`) ? joined : null;
  }
  return posix.normalize(value).startsWith(`${root}/`) ? value : null;
}

/** The mount path of a git repository on a provider: the declared one, or `<repo root>/<repo name>`. */
export function repositoryMountPath(
  url: string,
  mountPath: string | undefined,
  caps: ProviderCapabilities,
): string | null {
  if (mountPath !== undefined) return normalizeMountPath(mountPath, caps);
  const repoName =
    url
      .replace(/\/+$/, "")
      .split("/")
      .pop()
      ?.replace(/\.git$/, "") || "repository";
  return posix.join(caps.repositoryMountRoot ?? caps.mountRoot, repoName);
}

export function checkMountPath(
  ctx: RuleContext,
  value: string | undefined,
  path: Path,
  provider: string,
  caps: ProviderCapabilities,
): void {
  if (value === undefined) return;
  if (value.trim() === "") {
    ctx.report(
      "AGENTS1400",
      "mount path is empty",
      path,
      `give a path under ${caps.mountRoot}/, or leave mount_path out`,
    );
    return;
  }
  if (normalizeMountPath(value, caps) === null) {
    ctx.report(
      "AGENTS1400",
      `mount path "${value}" is not under ${provider}'s mount root ${caps.mountRoot}/`,
      path,
      `use a path starting with ${caps.mountRoot}/, or a relative path (placed under ${caps.mountRoot}/)`,
    );
  }
}

/**
 * The mount paths of one session's or deployment's resources, each where it is declared: two
 * that land on the same path (after a relative one is placed under the root) are refused by the
 * provider, so the second is reported here.
 */
export function checkUniqueMountPaths(
  ctx: RuleContext,
  mounts: readonly { value: string | undefined; path: Path }[],
  caps: ProviderCapabilities,
): void {
  const seen = new Set<string>();
  for (const { value, path } of mounts) {
    if (value === undefined || value.trim() === "") continue;
    const normalized = normalizeMountPath(value.trim(), caps);
    if (normalized === null) continue;
    if (seen.has(normalized))
      ctx.report(
        "AGENTS1401",
        `mount path "${value}" is used twice (${normalized})`,
        path,
        "give each resource its own mount path",
      );
    seen.add(normalized);
  }
}
