// Renaming a state entry: what `agents state mv` and a `moved:` entry both do to the resources.
import { type AddressParts, formatAddress } from "../model/address.js";
import type { ResourceState } from "./types.js";

/**
 * Moves the entry at `from` to `to` in `resources` (which the caller owns: a change being written,
 * or a plan's copy): the entry takes the new address and name, and every entry that depended on
 * the old address depends on the new one. Entries are replaced, never changed in place (a write
 * that fails leaves state as it was). Returns the moved entry.
 */
export function moveEntry(
  resources: Record<string, ResourceState>,
  from: string,
  to: AddressParts,
): ResourceState {
  const entry = resources[from]!;
  const moved = { ...entry, address: formatAddress(to), name: to.name };
  delete resources[from];
  resources[moved.address] = moved;
  for (const [address, r] of Object.entries(resources))
    if (r.dependsOn.includes(from))
      resources[address] = { ...r, dependsOn: r.dependsOn.map((d) => (d === from ? moved.address : d)) };
  return moved;
}
