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
  if (!value.startsWith("/")) return posix.join(root, value);
  const normalized = posix.normalize(value);
  return normalized.startsWith(`${root}/`) ? value : null;
}

export function checkMountPath(
  ctx: RuleContext,
  value: string | undefined,
  path: Path,
  provider: string,
  caps: ProviderCapabilities,
): void {
  if (value === undefined) return;
  if (normalizeMountPath(value, caps) === null) {
    ctx.report(
      "AGENTS1400",
      `mount path "${value}" is not under ${provider}'s mount root ${caps.mountRoot}/`,
      path,
      `use a path starting with ${caps.mountRoot}/, or a relative path (placed under ${caps.mountRoot}/)`,
    );
  }
}
