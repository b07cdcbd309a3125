// Shared test helpers: a resolver that names ids after the reference, so tables stay readable.
import type { Resolver } from "../../../src/providers/managed-dialect/agent.js";
import type { Kind } from "../../../src/providers/types.js";

export function fakeResolver(extra: Record<string, Record<string, unknown>> = {}): Resolver {
  return {
    resolve: (kind: Kind, name: string) => `id-${kind}-${name}`,
    resolveExtra: (kind: Kind, name: string) => extra[`${kind}/${name}`],
  };
}

export const OWNER = { project: "demo", resource: 'provider_c.agents["writer"]' };
export const OWNER_KEYS = { "agents.project": "demo", "agents.resource": 'provider_c.agents["writer"]' };
