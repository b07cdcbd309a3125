// Every provider_a wire choice the public facts leave open lives in this file, so a correction
// from real wire evidence is a change here and nowhere else. Each is listed, with its reason, in
// docs/wire/provider-a.md §8 (and mapped from agents.yaml in docs/providers.md).

/**
 * U1 (docs/wire/provider-a.md §8) — credential injection policy wire names, under `auth`; the names
 * follow the closest public analogue (provider_c): `auth.networking = {type:"limited",
 * allowed_hosts}` and `auth.injection_location = {header, body}`. "All hosts" is sent as the
 * explicit host list `["*"]` (legacy `unrestricted` means `*`), never as
 * `{type:"unrestricted"}`, so the wire always carries the host set the user sees in sync.
 */
export const CREDENTIAL_NETWORKING_FIELD = "networking";
export const CREDENTIAL_INJECTION_FIELD = "injection_location";
export function hostsToWire(hosts: string[]): Record<string, unknown> {
  return { type: "limited", allowed_hosts: hosts };
}
/** Reads either wire form back to a host list (`unrestricted` → `*`). */
export function hostsFromWire(networking: unknown): string[] | undefined {
  if (!networking || typeof networking !== "object") return undefined;
  const n = networking as { type?: unknown; allowed_hosts?: unknown };
  if (n.type === "unrestricted") return ["*"];
  if (Array.isArray(n.allowed_hosts))
    return n.allowed_hosts.filter((h): h is string => typeof h === "string");
  return undefined;
}

/**
 * U2 (docs/wire/provider-a.md §8) — multi-agent roster. The roster carries only member ids and
 * clearing sends an empty array. Shape chosen by analogy with provider_b's managed API:
 * `multiagent: {type:"coordinator", agents:[{type:"agent", id}]}`; clearing sends the same object
 * with `agents: []`.
 */
export function rosterToWire(memberIds: string[]): Record<string, unknown> {
  return { type: "coordinator", agents: memberIds.map((id) => ({ type: "agent", id })) };
}
export function rosterFromWire(value: unknown): string[] | undefined {
  if (!value || typeof value !== "object") return undefined;
  const agents = (value as { agents?: unknown }).agents;
  if (!Array.isArray(agents) || agents.length === 0) return undefined;
  return agents
    .map((a) => (typeof a === "string" ? a : (a as { id?: unknown })?.id))
    .filter((id): id is string => typeof id === "string");
}
export const CLEARED_ROSTER = { type: "coordinator", agents: [] as unknown[] };

/**
 * U3 (docs/wire/provider-a.md §8) — `limited` environment networking. The reference tool rejects it
 * locally (the live API answered HTTP 500 "must be one of [unrestricted]"); we keep rejecting it
 * rather than silently widening.
 */
export const ENVIRONMENT_LIMITED_NETWORKING_SUPPORTED = false;
