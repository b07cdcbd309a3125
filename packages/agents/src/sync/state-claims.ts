// Some kinds carry no `agents.*` ownership metadata on the wire (provider_b Identities keep only
// the integrating product's metadata; Channels have none). For those, the only link between a
// remote object and this project is the id the state recorded when apply created or imported it:
// such an object is claimed under that address. Objects the state does not know stay unowned and
// are never added to the file (nobody can tell whose they are).
import { parseAddress } from "../model/address.js";
import type { ProviderName, Spec } from "../providers/types.js";
import { idKey, type Listed } from "./claims.js";

export function claimUnstampedFromState(
  listed: Listed[],
  project: string,
  resources: Record<string, { kind: string; provider: string; id: string }>,
): Listed[] {
  const byId = new Map<string, string>();
  for (const [address, r] of Object.entries(resources)) byId.set(idKey(r.provider, r.kind, r.id), address);
  return listed.map((item) => {
    if (item.remote.owner) return item;
    const address = byId.get(idKey(item.provider as ProviderName, item.kind, item.remote.id));
    if (!address) return item;
    const spec = withoutDefaultName(item.remote.spec, address);
    return { ...item, remote: { ...item.remote, spec, owner: { project, resource: address } } };
  });
}

/** The list could not know the logical name; a remote name equal to it is the default, not a value. */
function withoutDefaultName(spec: Spec, address: string): Spec {
  const parsed = parseAddress(address);
  if (!parsed.ok || spec.name !== parsed.value.name) return spec;
  const { name: _default, ...rest } = spec;
  return rest;
}
