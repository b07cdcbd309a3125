// Who owns what in the account: every kind with a `list` hook is listed once per provider, and
// the project's objects are indexed by the address their `agents.resource` metadata names.
// Everything that would make the reverse mapping ambiguous is collected as a problem here, so
// sync can refuse before it touches the file.
import { formatAddress, parseAddress } from "../model/address.js";
import type { ProviderRuntime } from "../providers/registry.js";
import type { Kind, ProviderName, RemoteObject } from "../providers/types.js";

export interface Listed {
  provider: ProviderName;
  kind: Kind;
  remote: RemoteObject;
}

export interface Claims {
  project: string;
  /** Live objects owned by the project, by the address they claim (one each when no problems). */
  owned: Map<string, Listed>;
  /** Every listed object by provider, kind and remote id, whoever owns it. */
  byId: Map<string, Listed>;
  /** Owned live objects without a usable logical name (kept for roster checks and warnings). */
  unnamed: Listed[];
  /** Two or more live objects claiming one address: sync refuses to pick one. */
  duplicates: Map<string, Listed[]>;
  /** Provider/kind pairs that were listed (a kind without `list` is not synced). */
  listedKinds: Set<string>;
}

export const idKey = (provider: string, kind: string, id: string) => `${provider}\u0000${kind}\u0000${id}`;
export const kindKey = (provider: string, kind: string) => `${provider}\u0000${kind}`;

export async function listAccount(
  runtime: ProviderRuntime,
  providers: ProviderName[],
  kinds: readonly Kind[],
  signal: AbortSignal,
  warn: (message: string) => void,
): Promise<Listed[]> {
  const jobs: Promise<Listed[]>[] = [];
  for (const provider of providers) {
    for (const kind of kinds) {
      const handler = runtime.handler(provider, kind);
      if (!handler?.list) continue;
      const ctx = runtime.listContext(provider, signal, warn);
      jobs.push(
        handler
          .list(ctx, runtime.project)
          .then((remotes) => remotes.map((remote) => ({ provider, kind, remote }))),
      );
    }
  }
  return (await Promise.all(jobs)).flat();
}

/** The address an owned object claims, when `agents.resource` names an address of its own kind. */
export function claimedAddress(listed: Listed): string | undefined {
  const resource = listed.remote.owner?.resource;
  if (!resource) return undefined;
  const parsed = parseAddress(resource);
  if (!parsed.ok) return undefined;
  const { provider, kind, name } = parsed.value;
  if (provider !== listed.provider || kind !== listed.kind) return undefined;
  return formatAddress({ provider, kind, name });
}

export function indexClaims(project: string, listed: Listed[], listedKinds: Set<string>): Claims {
  const claims: Claims = {
    project,
    owned: new Map(),
    byId: new Map(),
    unnamed: [],
    duplicates: new Map(),
    listedKinds,
  };
  const byAddress = new Map<string, Listed[]>();
  for (const item of listed) {
    claims.byId.set(idKey(item.provider, item.kind, item.remote.id), item);
    if (item.remote.owner?.project !== project || item.remote.archived) continue;
    const address = claimedAddress(item);
    if (!address) {
      claims.unnamed.push(item);
      continue;
    }
    byAddress.set(address, [...(byAddress.get(address) ?? []), item]);
  }
  for (const [address, items] of byAddress) {
    if (items.length === 1) claims.owned.set(address, items[0]!);
    else claims.duplicates.set(address, items);
  }
  return claims;
}
