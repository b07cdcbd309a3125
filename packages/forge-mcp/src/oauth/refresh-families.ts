import { randomToken } from "../pkce.js";
import type { Sealer } from "./seal.js";
import type { RecordStore } from "./shared-state.js";

/**
 * Refresh-token families (RFC 9700 §4.14.2, rotation with reuse detection). Every sign-in starts
 * a family; each refresh token we hand out is sealed with its family and an id of its own
 * (./stores.ts), and the family's record names its active member. Presenting a member that is not
 * the active one means a refresh token was used twice: one of the two holders may be an attacker,
 * so the family ends: its active tokens are revoked at the forge (and dropped from the verify
 * cache), and every member of it gets invalid_grant from then on.
 *
 * The record lives in the shared record store: exact across replicas with Redis, per process
 * otherwise (memory mode has one process; stateless replicas without Redis each know the
 * families they served). It holds the active tokens sealed (purpose `family`), never in clear.
 */

/** How long a family is remembered after its last refresh (forge refresh tokens do not expire). */
export const FAMILY_TTL_MS = 30 * 24 * 3600 * 1000;

interface FamilyRecord {
  /** the active member's id */
  a?: string;
  /** the active member's forge tokens, sealed */
  s?: string;
  /** ended: no member refreshes any more */
  e?: 1;
}

export interface FamilyTokens {
  access_token: string;
  refresh_token?: string;
}

export type MemberState = "active" | "reused" | "ended" | "unknown";

export class RefreshFamilies {
  constructor(
    private readonly records: RecordStore,
    private readonly sealer: Sealer,
  ) {}

  /** A new family's name and its first member's id. */
  start(): { family: string; id: string } {
    return { family: randomToken(16), id: randomToken(16) };
  }

  /** A fresh member id. */
  nextId(): string {
    return randomToken(16);
  }

  /** What the member `id` of `family` is now: "unknown" when the family is not remembered here. */
  async state(family: string, id: string): Promise<MemberState> {
    const r = await this.read(family);
    if (!r) return "unknown";
    if (r.e) return "ended";
    return r.a === id ? "active" : "reused";
  }

  /** The member `id` (holding `tokens`) is the family's active one from now on. */
  async activate(family: string, id: string, tokens: FamilyTokens): Promise<void> {
    const record: FamilyRecord = { a: id, s: this.sealer.seal("family", tokens, FAMILY_TTL_MS) };
    await this.records.set(key(family), JSON.stringify(record), FAMILY_TTL_MS);
  }

  /** Ends the family; returns the tokens of its active member (to revoke), if it was remembered. */
  async end(family: string): Promise<FamilyTokens | undefined> {
    const r = await this.read(family);
    if (r?.e) return undefined;
    await this.records.set(key(family), JSON.stringify({ e: 1 } satisfies FamilyRecord), FAMILY_TTL_MS);
    return r?.s ? this.sealer.open<FamilyTokens>("family", r.s)?.data : undefined;
  }

  private async read(family: string): Promise<FamilyRecord | undefined> {
    const raw = await this.records.get(key(family));
    if (raw === undefined) return undefined;
    try {
      return JSON.parse(raw) as FamilyRecord;
    } catch {
      return undefined;
    }
  }
}

const key = (family: string) => `refresh-family:${family}`;
