// Every provider_b wire choice the fact sheet leaves UNDETERMINED (or that we had to pick where
// sheet and spec are silent) lives here; docs/providers.md ("provider_b — UNDETERMINED choices")
// explains each one.

/**
 * U1 — Forward Template roster entry. The sheet: "SPEC roster uses `template_id` entries, explicit
 * `null` clears — entry shape UNDETERMINED". Chosen by analogy with the managed roster:
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
 * U2 — mount access of explicit Forward memory stores. The spec says read-only; the mount body
 * in the sheet is `{memory_store_id}` only, so we add `access: "read_only"` (the mount list
 * reports `access`, so the field exists on the wire).
 */
export const EXPLICIT_FORWARD_MOUNT_ACCESS = "read_only";

/**
 * U3 — the spec's `git_repository` session resource goes on the wire as provider_b's
 * `github_repository` type (the only repository type the sheet shows), with `checkout` as
 * `{type:"branch", name}` / `{type:"commit", sha}`.
 */
export const REPOSITORY_WIRE_TYPE = "github_repository";

// U4 — the Forward memory-store create carries an `Idempotency-Key` (REF does): a fresh UUID per
// create call, so the HTTP client may retry that POST after a lost response without a second store.
// A key derived from the address would replay a store deleted by an earlier destroy.
// (sent by handlers/memory-stores.ts)

/**
 * U5 — purpose of Files a Forward Template inherits. The Forward File API accepts only
 * `user_upload` or `session_resource`; Template files end up in every Session, so we send
 * `session_resource`.
 */
export const FORWARD_FILE_PURPOSE = "session_resource";

/**
 * U6 — a value with `;` in the managed Session `KEY=VALUE;…` string. The wire shows no escape,
 * so such a value is rejected locally instead of being split into two variables.
 */
export const MANAGED_ENV_VALUE_FORBIDDEN = ";";
