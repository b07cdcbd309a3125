// Every provider_c wire choice the public facts leave open, or where the reference tool and the
// official SDK disagree, in one place. docs/wire/provider-c.md §7 lists each with its reason.

export const DEFAULT_BASE_URL = "https://api.anthropic.com/v1";
export const ANTHROPIC_VERSION = "2023-06-01";

export const SKILLS_BETA = "skills-2025-10-02";
export const FILES_BETA = "files-api-2025-04-14";

/** Sent unless the provider block's `beta` replaces it (the reference tool's default set). */
export const DEFAULT_BETA = `managed-agents-2026-04-01,${SKILLS_BETA},${FILES_BETA}`;

// U2 (docs/wire/provider-c.md §7): `beta` replaces the default value (as the reference tool does), but
// skills and files requests always carry their own family value too, added when `beta` lacks it. (done in
// client.ts)

/**
 * U1 (docs/wire/provider-c.md §7): which beta value memory endpoints accept. Chosen: exactly the memory
 * value (the reference tool saw the combined value rejected; the SDK documents that this one works). It
 * replaces the whole header on memory calls, whatever `beta` the user configured.
 */
export const MEMORY_BETA = "agent-memory-2026-07-22";

export const BUILTIN_TOOLSET_TYPE = "agent_toolset_20260401";
export const MOUNT_ROOT = "/workspace";

/**
 * U4 (docs/wire/provider-c.md §7): wire value of a declared `official` skill (the reference forwarded
 * `official` verbatim, which is wrong).
 */
export const OFFICIAL_SKILL_TYPE = "anthropic";

/**
 * U11 (docs/wire/provider-c.md §7): roster entries are bare agent ids (what the reference sends; the SDK
 * also takes `{type:"agent", id}`).
 */
export const ROSTER_FORM = "string" as const;

/** Model: a bare model id (the declaration's model is a string per provider). */
export const MODEL_FORM = "string" as const;

/**
 * U10 (docs/wire/provider-c.md §7): metadata on update. The SDK documents a patch (`null` deletes a key)
 * for memory stores and deployments; chosen for every kind: upsert the declared keys and send `null` for
 * keys the declaration dropped, so removed labels really disappear.
 */
export const METADATA_UPDATE = "patch" as const;

/**
 * U3, U5 (docs/wire/provider-c.md §7). Skills carry no metadata. Ownership is tagged in `display_name`
 * (the SDK's optional field) as `<logical name> [agents:<project>:<address>]`, so findOwned can adopt
 * after a crash. Skill object fields differ between sources: both `display_name` and `display_title`,
 * `latest_version_id` and `latest_version` are read.
 */
export function skillOwnerTag(logicalName: string, project: string, address: string): string {
  return `${logicalName} [agents:${project}:${address}]`;
}
export function parseSkillOwnerTag(displayName: string): { project: string; resource: string } | undefined {
  const match = /\[agents:([^:\]]*):(.*)\]$/.exec(displayName);
  return match?.[1] !== undefined && match[2] !== undefined
    ? { project: match[1], resource: match[2] }
    : undefined;
}

// U3 (docs/wire/provider-c.md §7). Files carry no metadata and their filename must stay the basename
// of `source`, so there is no honest ownership marker: a file's upload is journaled before its
// request and findOwned finds only a journaled upload in `GET /files` (managed-dialect/handlers/files.ts,
// shared with provider_d).

// Agent update: resend the full body; cleared lists are `[]`, a cleared roster `null`, description
// `""`. (done in managed-dialect/agent.ts)

/**
 * U6 (docs/wire/provider-c.md §7). Optimistic-lock conflicts on agent update: re-read the version and retry
 * this many times.
 */
export const AGENT_VERSION_RETRIES = 2;

export { DEFAULT_SCHEDULE_TIMEZONE } from "../managed-dialect/deployment.js";

// U9 (docs/wire/provider-c.md §7): deployment file resources with a local `source` are uploaded by the
// deployment and deleted with it. (done in handlers/deployments.ts)

/** U13 (docs/wire/provider-c.md §7). Page size for every list walk (the reference's value). */
export const PAGE_SIZE = 100;

/**
 * U12 (docs/wire/provider-c.md §7): whether a list item is the whole object. List and GET give the same
 * object type (the SDK's list pages are pages of that type), so a plan reads many resources of a
 * kind from its list pages and GETs only what the list did not show.
 */
export const LISTS_SHOW_FULL_OBJECTS = true;
