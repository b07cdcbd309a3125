// provider_d environment names must match `^[a-z0-9][a-z0-9-_.]{2,63}$` and stay reserved for a
// while after deletion, so a create that conflicts retries with `-1`, `-2`, … suffixes.
import { ENVIRONMENT_NAME_ATTEMPTS } from "./wire-decisions.js";

const MAX = 64;

export function normalizeEnvironmentName(name: string): string {
  let out = name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9\-_.]+/g, "-")
    .replace(/^[^a-z0-9]+/, "")
    .replace(/-{2,}/g, "-");
  if (out === "") out = "env";
  else if (out.length < 3) out = `${out}-env`;
  return out.slice(0, MAX);
}

/** The name for attempt `n` (0 = unsuffixed); the prefix is cut so the whole stays ≤ 64. */
export function suffixedName(base: string, attempt: number): string {
  if (attempt === 0) return base;
  const suffix = `-${attempt}`;
  return base.slice(0, MAX - suffix.length) + suffix;
}

export function nameAttempts(base: string): string[] {
  return Array.from({ length: ENVIRONMENT_NAME_ATTEMPTS }, (_, i) => suffixedName(base, i));
}

/** True when `remote` is `base` or one of its retry suffixes. */
export function isOwnName(remote: string, base: string): boolean {
  return nameAttempts(base).includes(remote);
}
