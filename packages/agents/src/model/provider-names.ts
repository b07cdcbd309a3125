/**
 * The providers this build knows, by the key written under `providers:`. Only the names live here,
 * like the kinds in kinds.ts: everything else about a provider is its definition
 * (`providers/<p>/definition.ts`), gathered in `providers/catalog.ts`, which is checked at compile
 * time to hold exactly one definition per name.
 */
export const PROVIDER_NAMES = ["provider_a", "provider_b", "provider_c", "provider_d"] as const;

export type ProviderName = (typeof PROVIDER_NAMES)[number];

export function isProviderName(name: string): name is ProviderName {
  return (PROVIDER_NAMES as readonly string[]).includes(name);
}
