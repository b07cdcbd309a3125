// Every provider_d wire choice the public facts leave open, or that the adapter had to pick, in
// one place. docs/wire/provider-d.md §8 lists each with its reason.

export const DEFAULT_BASE_URL = "https://ark.cn-beijing.volces.com/api/v3";
export const BUILTIN_TOOLSET_TYPE = "agent_toolset_20260701";
export const MOUNT_ROOT = "/mnt";
export const PAGE_SIZE = 100;

/**
 * U1 (docs/wire/provider-d.md §8): whether a list item is the whole object. List and GET give the same
 * object type (the SDK's list pages are pages of that type), so a plan reads many resources of a
 * kind from its list pages and GETs only what the list did not show.
 */
export const LISTS_SHOW_FULL_OBJECTS = true;

// U2 (docs/wire/provider-d.md §8): id formats. Ids are opaque strings; nothing parses or checks a prefix.
// (nothing parses an id)

/**
 * U8 (docs/wire/provider-d.md §8): declared `official` skills are sent as `official` (the type is forwarded
 * as declared).
 */
export const OFFICIAL_SKILL_TYPE = "official";
export const ROSTER_FORM = "object" as const;
export const MODEL_FORM = "object" as const;

/**
 * docs/wire/provider-d.md §3.1 and U4 (§8). Environment names: `^[a-z0-9][a-z0-9-_.]{2,63}$`
 * (environment-names.ts normalizes a declared name into that form), 409 → retry with `-1`, `-2`, …
 * up to 16 attempts in all. Update keeps a suffixed name the create needed (the reference sends the
 * unsuffixed name, which conflicts again while the base name is taken); a changed declared name is
 * sent normalized and unsuffixed.
 */
export const ENVIRONMENT_NAME_ATTEMPTS = 16;

/**
 * U3 (docs/wire/provider-d.md §8): metadata on update. Memory-store metadata is known to be "replaced as
 * sent"; chosen for every kind: send the full declared map (no `null` deletions).
 */
export const METADATA_UPDATE = "replace" as const;

// U5 (docs/wire/provider-d.md §8): vault update and credential lifecycle are "not used" upstream and their
// shapes are not established: a vault change is a replacement (new vault first, then the old one deleted).
// (profile.ts: `vaultInPlaceUpdate: false`)

/**
 * U9 (docs/wire/provider-d.md §8). Files need a purpose: `agent` (session-mounted) unless the declaration
 * says `user_data`.
 */
export const DEFAULT_FILE_PURPOSE = "agent";

// U6 (docs/wire/provider-d.md §8). Skills: create + get only. A change uploads a new skill
// (replacement). Removal tries `DELETE /skills/{id}`; the route does not exist (404), so the id is
// forgotten with a warning that the skill stays on the provider. No list → no findOwned, no
// adoption. (done in handlers/skills.ts)

/**
 * U11 (docs/wire/provider-d.md §8, §3.8). Deployments do not exist remotely. They are modelled as
 * local-only resources: apply records the session body a run would send (resolved ids) under a synthetic
 * id `local:<address>`; destroy forgets it; nothing is read back. `schedule` is kept but not enforced.
 */
export function emulatedDeploymentId(address: string): string {
  return `local:${address}`;
}

// U7 (docs/wire/provider-d.md §8): memory seeds at create go through `batch_create` with `on_conflict:
// "overwrite"`. (sent by managed-dialect/handlers/memory-stores.ts)

// U10 (docs/wire/provider-d.md §8). Files have no metadata and keep the source basename: no ownership
// marker. `GET /files` lists them, so each upload is journaled before its request and findOwned
// finds only a journaled upload (common/journaled-uploads.ts, managed-dialect/handlers/files.ts).
