// Vault read-backs never contain secrets. The engine overlays what a read shows onto the last
// applied spec, so a credential list without its secrets would look like a change every time;
// the last-applied (hashed) secret of a credential with the same name is carried over instead.
import type { PriorState } from "../types.js";

const SECRET_FIELDS = ["secret_value", "access_token"] as const;

export function carryPriorSecrets(
  credentials: Record<string, unknown>[],
  prior: PriorState | undefined,
): Record<string, unknown>[] {
  const before = Array.isArray(prior?.spec.credentials)
    ? (prior.spec.credentials as Record<string, unknown>[])
    : [];
  return credentials.map((c) => {
    const match = before.find((p) => p.name === c.name && p.type === c.type);
    if (!match) return c;
    const out = { ...c };
    for (const field of SECRET_FIELDS) if (match[field] !== undefined) out[field] = match[field];
    return out;
  });
}
