import type { ProviderCapabilities } from "../model/capabilities.js";
import type { Kind } from "../model/kinds.js";
import { capabilitiesOf } from "../providers/specs.js";
import type { Config } from "./schema/index.js";

/** The providers declared under `providers:`, in file order. */
const declaredCache = new WeakMap<object, string[]>();

export function declaredProviders(config: Pick<Config, "providers">): string[] {
  const providers = (config.providers ?? {}) as Record<string, unknown>;
  let declared = declaredCache.get(providers);
  if (!declared) {
    declared = Object.keys(providers).filter((name) => providers[name] !== undefined);
    declaredCache.set(providers, declared);
  }
  return declared;
}

/**
 * Which providers a resource targets: its own `provider`, else `defaults.provider` (a name, or
 * `all` for every declared provider), else the single declared provider. An empty list means
 * the target cannot be determined (the rules report why).
 */
export function targetsOf(pin: string | undefined, config: Config, kind?: Kind): string[] {
  const declared = declaredProviders(config);
  // Tunnels carry no `provider` field: they belong to every declared provider that has tunnels.
  if (kind === "tunnels") return declared.filter((name) => capabilitiesOf(name)?.kinds.tunnels.supported);
  if (pin !== undefined) return declared.includes(pin) ? [pin] : [];
  const fallback = config.defaults?.provider;
  if (fallback === "all") return declared;
  if (fallback !== undefined) return declared.includes(fallback) ? [fallback] : [];
  return declared.length === 1 ? declared : [];
}

export type Delivery = "managed" | "forward";

export function deliveryOf(
  agent: { delivery?: Record<string, { type: Delivery } | undefined> },
  caps: ProviderCapabilities,
): Delivery {
  const key = caps.agents.deliveryKey;
  if (!key) return "managed";
  return agent.delivery?.[key]?.type ?? "managed";
}
