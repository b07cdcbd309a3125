// Every provider_b wire choice the public facts leave open lives here; docs/wire/provider-b.md §8
// lists each one with its reason (and docs/providers.md maps them from agents.yaml).

/**
 * U1 (docs/wire/provider-b.md §8) — Forward Template roster entry. Known: the roster carries
 * template ids and `null` clears it; the entry shape is not. Chosen by analogy with the managed roster:
 * `multiagent: {type:"coordinator", agents:[{type:"template", template_id}]}`.
 */
export function forwardRosterToWire(templateIds: string[]): Record<string, unknown> {
  return {
    type: "coordinator",
    agents: templateIds.map((template_id) => ({ type: "template", template_id })),
  };
}

/** Managed roster (upstream documented): only ids, the platform pins the current version on save. */
export function managedRosterToWire(agentIds: string[]): Record<string, unknown> {
  return { type: "coordinator", agents: agentIds.map((id) => ({ type: "agent", id })) };
}

export function rosterIdsFromWire(value: unknown): string[] | undefined {
  if (!value || typeof value !== "object") return undefined;
  const agents = (value as { agents?: unknown }).agents;
  if (!Array.isArray(agents)) return undefined;
  return agents
    .map((a) => (a as { id?: unknown; template_id?: unknown }) ?? {})
    .map((a) => (typeof a.template_id === "string" ? a.template_id : a.id))
    .filter((id): id is string => typeof id === "string");
}

/**
 * U2 (docs/wire/provider-b.md §8, §4.4) — mount access of explicit Forward memory stores. The
 * configuration makes them read-only; the known mount body is `{memory_store_id}` only, so we add `access: "read_only"` (the mount list
 * reports `access`, so the field exists on the wire).
 */
export const EXPLICIT_FORWARD_MOUNT_ACCESS = "read_only";

/**
 * U3 (docs/wire/provider-b.md §8) — a declared `git_repository` session resource goes on the wire
 * as provider_b's `github_repository` type (the only repository type known), with `checkout` as
 * `{type:"branch", name}` / `{type:"commit", sha}`.
 */
export const REPOSITORY_WIRE_TYPE = "github_repository";

// U4 (docs/wire/provider-b.md §8) — the Forward memory-store create carries an `Idempotency-Key`
// (the reference tool does too): a fresh UUID per create call, so the HTTP client may retry that POST after a lost response without a second store.
// A key derived from the address would replay a store deleted by an earlier destroy.
// (sent by handlers/memory-stores.ts)

/**
 * U5 (docs/wire/provider-b.md §8) — purpose of Files a Forward Template inherits. The Forward File API
 * accepts only `user_upload` or `session_resource`; Template files end up in every Session, so we send
 * `session_resource`.
 */
export const FORWARD_FILE_PURPOSE = "session_resource";

/**
 * U6 (docs/wire/provider-b.md §8) — a value with `;` in the managed Session `KEY=VALUE;…` string. The wire
 * shows no escape, so such a value is rejected locally instead of being split into two variables.
 */
export const MANAGED_ENV_VALUE_FORBIDDEN = ";";
