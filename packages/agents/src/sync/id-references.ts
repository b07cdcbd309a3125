// Some listed objects can name another object only by remote id (a provider_b Forward Template's
// environment and vaults). Their list hook reports those as `extra.sync_refs`; here each one
// becomes the logical name of the project's own object with that id. A declaration that already
// names the field keeps its own value (plan compares it); an id of an object this project does
// not own cannot be written as a logical name, so the field is left out with a warning.
import { parseAddress } from "../model/address.js";
import type { Kind, ProviderName, Spec } from "../providers/types.js";
import { type Claims, claimedAddress, idKey } from "./claims.js";

export interface SyncRef {
  /** The declaration's field, e.g. `environment` (one id) or `vaults` (a list of ids). */
  field: string;
  kind: Kind;
  ids: string[];
  list: boolean;
}

export function syncRefsOf(extra: Record<string, unknown> | undefined): SyncRef[] {
  return Array.isArray(extra?.sync_refs) ? (extra.sync_refs as SyncRef[]) : [];
}

export function mapIdReferences(
  spec: Spec,
  refs: SyncRef[],
  declared: Record<string, unknown> | undefined,
  ctx: { claims: Claims; provider: ProviderName; holder: string; warn(message: string): void },
): Spec {
  const out: Spec = { ...spec };
  for (const ref of refs) {
    if (declared && ref.field in declared) continue;
    const names: string[] = [];
    for (const id of ref.ids) {
      const listed = ctx.claims.byId.get(idKey(ctx.provider, ref.kind, id));
      const address =
        listed && listed.remote.owner?.project === ctx.claims.project ? claimedAddress(listed) : undefined;
      const parsed = address ? parseAddress(address) : undefined;
      if (parsed?.ok) names.push(parsed.value.name);
      else
        ctx.warn(
          `${ctx.holder}: ${ref.field} names ${ref.kind} ${id}, which is not this project's; ` +
            `add it to the file by hand if the agent should keep it`,
        );
    }
    if (names.length === ref.ids.length && names.length > 0) out[ref.field] = ref.list ? names : names[0];
  }
  return out;
}
