import { createHash, randomBytes, randomUUID } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { ForgeTokens } from "../forge/oauth-client.js";
import { randomToken } from "../pkce.js";
import { Sealer } from "./seal.js";
import type { OneTimeGuard } from "./shared-state.js";

export type { ForgeTokens };

/**
 * Where the OAuth state of proxy mode lives. Two implementations of one contract:
 * - memory: one LRU of at most 1000 entries holding pending transactions and proxy code records
 *   (docs/forge-mcp-oauth.md §8); deleting an entry is what makes it single-use;
 * - sealed (stateless mode): the record travels inside the opaque value itself (client_id, state,
 *   code), so any replica holding the secret can serve any step; single use is enforced by a
 *   OneTimeGuard (process-local, or exact across replicas with Redis) plus the short expiry.
 */

const STORE_MAX_ENTRIES = 1000;
export const PROXY_CODE_TTL_MS = 10 * 60 * 1000;
const TRANSACTION_TTL_MS = 10 * 60 * 1000;

export interface ClientRecord {
  redirect_uris: string[];
  client_name?: string;
  /** unix seconds */
  client_id_issued_at: number;
}

interface PendingTransaction {
  clientId: string;
  redirectUri: string;
  clientState: string | undefined;
  clientChallenge: string;
  proxyVerifier: string;
  scope: string;
  createdAt: number;
}

interface ProxyCodeRecord {
  tokens: ForgeTokens;
  clientId: string;
  redirectUri: string;
  clientChallenge: string;
  createdAt: number;
}

export interface ClientRegistry {
  register(record: ClientRecord): Promise<string>;
  get(clientId: string): Promise<ClientRecord | undefined>;
}

export interface TransactionStore {
  /** `source` is the requesting client's address; the memory store bounds its pending entries. */
  create(txn: PendingTransaction, source?: string): Promise<string>;
  /** Reads without consuming (consent page). */
  peek(proxyState: string): Promise<PendingTransaction | undefined>;
  /** Reads and deletes: a second take of the same state finds nothing. */
  take(proxyState: string): Promise<PendingTransaction | undefined>;
}

/**
 * Refresh tokens are bound to the client that obtained them: another client presenting one gets
 * invalid_grant. Every mode hands the client a sealed wrapper (`fmcprt1.`: the forge's refresh
 * token, the client id's hash, the token's family and its own id), so the client never holds the
 * forge's token and cannot skip the binding by going to the forge directly. Stateless mode seals
 * under the shared secret (every replica opens it); memory mode under a key made at start-up, so
 * a restart makes outstanding refresh tokens unusable, as it already makes the client
 * registrations unknown. The family and id let ./refresh-families.ts tell a reused refresh token
 * from the family's active one (RFC 9700 §4.14.2).
 */
export interface OpenedRefresh {
  /** The forge token behind it (a raw token presented as it is: the token itself). */
  token: string;
  /** Sealed by us: its family and its own id (absent for a raw token). */
  family?: string;
  id?: string;
  /** Whether it was issued to the client presenting it (a raw token: true, it names no client). */
  own: boolean;
}

export interface RefreshBinding {
  /**
   * The forge refresh token behind what a client presents for a refresh; undefined when it is
   * bound to another client, or not ours.
   */
  open(presented: string, clientId: string): OpenedRefresh | undefined;
  /**
   * What a client presents for revocation (RFC 7009: a refresh token of ours, or a raw token,
   * which may be an access token): undefined when it is not ours; `own` false when it is sealed
   * for another client.
   */
  openForRevoke(presented: string, clientId: string): OpenedRefresh | undefined;
  /** What the client receives for a forge refresh token it obtained, as the member `id` of `family`. */
  bind(forgeRefreshToken: string, clientId: string, family: string, id: string): string;
}

const tokenHash = (t: string) => createHash("sha256").update(t).digest("base64url");

export interface ProxyCodeStore {
  /** `source` is the address that completed the sign-in; the memory store bounds its pending entries. */
  issue(record: ProxyCodeRecord, source?: string): Promise<string>;
  peek(code: string): Promise<ProxyCodeRecord | undefined>;
  /** Marks the code used; false when it already was (or is gone). */
  consume(code: string): Promise<boolean>;
  /**
   * The record of a code that was already redeemed, while it would still be live, so a replay can
   * revoke what it produced (RFC 6749 §4.1.2). Memory mode keeps it aside at `consume`; a sealed
   * code carries its record itself (`peek` still opens it), so the sealed store answers undefined.
   */
  spent(code: string): Promise<ProxyCodeRecord | undefined>;
}

/**
 * Pending entries one client address may hold at once in memory mode: authorize transactions and
 * unredeemed proxy codes together.
 */
export const PENDING_PER_SOURCE = 20;

type Entry = { kind: "txn"; txn: PendingTransaction } | { kind: "code"; record: ProxyCodeRecord };

export function memoryStores(
  now: () => number,
  sealer: Sealer = new Sealer(randomBytes(32), undefined, now),
): {
  clients: ClientRegistry;
  transactions: TransactionStore;
  codes: ProxyCodeStore;
  refresh: RefreshBinding;
  lru: LRUCache<string, Entry>;
} {
  const lru = new LRUCache<string, Entry>({ max: STORE_MAX_ENTRIES });
  // redeemed codes' records, kept until the code would have expired, for a replay to revoke
  const spent = new LRUCache<string, ProxyCodeRecord>({ max: STORE_MAX_ENTRIES });
  // One source holds at most PENDING_PER_SOURCE pending entries (transactions and unredeemed
  // proxy codes): past that, its own oldest goes, so anonymous /authorize calls or completed but
  // never redeemed sign-ins from one address churn their own entries instead of pushing other
  // users' sign-ins out of the shared LRU.
  const bySource = new LRUCache<string, string[]>({ max: STORE_MAX_ENTRIES });
  const admit = (source: string | undefined, key: string) => {
    if (source === undefined) return;
    const mine = (bySource.get(source) ?? []).filter((k) => lru.has(k));
    while (mine.length >= PENDING_PER_SOURCE) lru.delete(mine.shift()!);
    mine.push(key);
    bySource.set(source, mine);
  };
  // Registrations are not authorization state; they get their own, larger bound.
  const clientMap = new LRUCache<string, ClientRecord>({ max: 50_000 });
  const liveTxn = (state: string) => {
    const e = lru.get(`txn:${state}`);
    if (e?.kind !== "txn" || now() - e.txn.createdAt > TRANSACTION_TTL_MS) return undefined;
    return e.txn;
  };
  return {
    lru,
    // nothing unsealed was ever handed out by this process: a raw token is refused for refresh,
    // and relayed only for revocation (where it may be an access token)
    refresh: sealedRefresh(sealer, false),
    clients: {
      async register(record) {
        const id = randomUUID();
        clientMap.set(id, record);
        return id;
      },
      async get(id) {
        return clientMap.get(id);
      },
    },
    transactions: {
      async create(txn, source) {
        const state = randomToken();
        admit(source, `txn:${state}`);
        lru.set(`txn:${state}`, { kind: "txn", txn });
        return state;
      },
      async peek(state) {
        return liveTxn(state);
      },
      async take(state) {
        const txn = liveTxn(state);
        lru.delete(`txn:${state}`);
        return txn;
      },
    },
    codes: {
      async issue(record, source) {
        const code = randomToken();
        admit(source, `code:${code}`);
        lru.set(`code:${code}`, { kind: "code", record });
        return code;
      },
      async peek(code) {
        const e = lru.get(`code:${code}`);
        return e?.kind === "code" ? e.record : undefined;
      },
      async consume(code) {
        const e = lru.get(`code:${code}`);
        if (!lru.delete(`code:${code}`)) return false;
        if (e?.kind === "code") spent.set(code, e.record);
        return true;
      },
      async spent(code) {
        const record = spent.get(code);
        return record && now() - record.createdAt <= PROXY_CODE_TTL_MS ? record : undefined;
      },
    },
  };
}

/** Prefix that marks a sealed client id, so a UUID from a memory-mode deployment is never mistaken for one. */
const SEALED_CLIENT_PREFIX = "fmcp1.";
/** Prefix of a sealed refresh token (stateless mode). */
const SEALED_REFRESH_PREFIX = "fmcprt1.";

export function sealedStores(
  sealer: Sealer,
  guard: OneTimeGuard,
): {
  clients: ClientRegistry;
  transactions: TransactionStore;
  codes: ProxyCodeStore;
  refresh: RefreshBinding;
} {
  return {
    // a token from before sealing (or a raw forge token) is relayed as it is
    refresh: sealedRefresh(sealer, true),
    clients: {
      async register(record) {
        return SEALED_CLIENT_PREFIX + sealer.seal("client", record, undefined);
      },
      async get(id) {
        if (!id.startsWith(SEALED_CLIENT_PREFIX)) return undefined;
        return sealer.open<ClientRecord>("client", id.slice(SEALED_CLIENT_PREFIX.length))?.data;
      },
    },
    transactions: {
      async create(txn) {
        return sealer.seal("state", txn, TRANSACTION_TTL_MS);
      },
      async peek(state) {
        return sealer.open<PendingTransaction>("state", state)?.data;
      },
      async take(state) {
        const opened = sealer.open<PendingTransaction>("state", state);
        if (!opened) return undefined;
        return (await guard.claim("state", opened.jti, opened.expiresAt)) ? opened.data : undefined;
      },
    },
    codes: {
      async issue(record) {
        return sealer.seal("code", record, PROXY_CODE_TTL_MS);
      },
      async peek(code) {
        return sealer.open<ProxyCodeRecord>("code", code)?.data;
      },
      async consume(code) {
        const opened = sealer.open<ProxyCodeRecord>("code", code);
        return opened ? guard.claim("code", opened.jti, opened.expiresAt) : false;
      },
      async spent() {
        return undefined;
      },
    },
  };
}

/**
 * The sealed refresh binding of both modes. `rawRefresh` says whether a token without the prefix
 * is relayed as it is for a refresh (a raw token is always relayed for a revocation).
 */
function sealedRefresh(sealer: Sealer, rawRefresh: boolean): RefreshBinding {
  const opened = (presented: string, clientId: string): OpenedRefresh | undefined => {
    if (!presented.startsWith(SEALED_REFRESH_PREFIX)) return { token: presented, own: true };
    const o = sealer.open<{ t: string; c: string; f?: string; n?: string }>(
      "refresh",
      presented.slice(SEALED_REFRESH_PREFIX.length),
    );
    if (!o || typeof o.data.t !== "string") return undefined;
    return {
      token: o.data.t,
      ...(o.data.f !== undefined && o.data.n !== undefined ? { family: o.data.f, id: o.data.n } : {}),
      own: o.data.c === tokenHash(clientId),
    };
  };
  return {
    open(presented, clientId) {
      if (!presented.startsWith(SEALED_REFRESH_PREFIX))
        return rawRefresh ? { token: presented, own: true } : undefined;
      const o = opened(presented, clientId);
      return o?.own ? o : undefined;
    },
    openForRevoke: opened,
    bind(token, clientId, family, id) {
      // the client id's hash: a stateless client id is itself a sealed registration, and long
      return (
        SEALED_REFRESH_PREFIX +
        sealer.seal("refresh", { t: token, c: tokenHash(clientId), f: family, n: id }, undefined)
      );
    },
  };
}
