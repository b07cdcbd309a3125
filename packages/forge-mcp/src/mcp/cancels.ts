import { createHash } from "node:crypto";
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { Caller } from "./catalogue.js";

/**
 * notifications/cancelled for calls answered statelessly over HTTP. A 2025 client (the official
 * v1 SDK among them) cancels a call by POSTing `notifications/cancelled` as a request of its own;
 * with no session, nothing ties that request to the call it names, so the layer keeps its own
 * table of the calls running in this process that can stop early (those whose signal was read),
 * under who made them and the id they gave. A cancel finds only a call of the same caller
 * (`principalOf`) and the same Mcp-Session-Id (when a client sends one): a request id is the
 * client's choice, so another caller naming it must reach nothing. The table is per process and
 * bounded; an entry leaves it when its call ends; it holds no credential (a token is hashed).
 *
 * Across replicas (a balancer may send the cancel to another process than the call's): a cancel
 * that finds no call under its key here goes to the `CancelRelay` the server gave, if any (Redis
 * pub/sub with REDIS_URL: src/oauth/shared-state.ts makes it, src/server.ts hands it in), as the
 * key's SHA-256 only (`cancelHash`); each process that hears a hash cancels the one call it holds
 * under a key of that hash, as a cancel of its own would. A call pays nothing for this: the hashes
 * of the keys in the table are worked out only when a relayed cancel arrives.
 */

/**
 * Carries the cancels this process could not place to the other processes of the deployment.
 * `publish` never throws and never waits (the notification is answered at once); `listen` is
 * given what each process published, this one's own included.
 */
export interface CancelRelay {
  publish(hash: string): void;
  listen(heard: (hash: string) => void): void;
}

/** What crosses the relay for a call's key: its SHA-256, base64url (nothing identifying in clear). */
export function cancelHash(key: string): string {
  return createHash("sha256").update(key).digest("base64url");
}

/** The shape of a cancelHash (43 base64url characters): anything else heard is ignored. */
export const CANCEL_HASH = /^[A-Za-z0-9_-]{43}$/;

/** How many calls can be cancellable at once in one process; past it a call is not registered. */
export const MAX_CANCELLABLE = 10_000;

type Id = string | number;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Who a caller is, as far as cancelling goes: the forge user its credential was verified as (and
 * the OAuth client and the forge, where the caller carries them), so a token refreshed while a
 * long call runs still cancels it; a credential with no verified user, by the token's hash; no
 * credential of the caller's (a server token), one caller for all.
 */
export function principalOf(caller: Caller | undefined): string {
  if (!caller) return "server";
  const user = caller.extra?.userId;
  if (typeof user === "number" || typeof user === "string") {
    const api = caller.extra?.apiUrl;
    return `user ${typeof api === "string" ? api : ""} ${caller.clientId ?? ""} ${user}`;
  }
  return `token ${createHash("sha256").update(caller.token).digest("base64url")}`;
}

/** The key of one call: who made it, in which session (if the client sent one), with which id. */
export function callKey(
  caller: Caller | undefined,
  headers: IncomingHttpHeaders | undefined,
  id: Id,
): string {
  const session = headers?.["mcp-session-id"];
  return `${principalOf(caller)}\n${typeof session === "string" ? session : ""}\n${typeof id === "number" ? "n" : "s"}${id}`;
}

/** A notifications/cancelled message's requestId and reason, or undefined for any other message. */
export function cancelNotice(message: unknown): { requestId: Id; reason: string | undefined } | undefined {
  if (!isRecord(message) || message.method !== "notifications/cancelled" || "id" in message) return undefined;
  const params = message.params;
  if (!isRecord(params)) return undefined;
  const { requestId, reason } = params;
  if (typeof requestId !== "string" && typeof requestId !== "number") return undefined;
  return { requestId, reason: typeof reason === "string" ? reason : undefined };
}

interface Entry {
  cancel: () => void;
  live: boolean;
}

/** The running calls that a notifications/cancelled can stop, by callKey. */
export class CancelTable {
  private readonly calls = new Map<string, Entry[]>();
  /** cancelHash of keys in the table, worked out by the first relayed cancel that looked. */
  private readonly hashes = new Map<string, string>();
  private size = 0;

  constructor(private readonly max = MAX_CANCELLABLE) {}

  /** How many calls are in the table (tests). */
  get count(): number {
    return this.size;
  }

  /**
   * Adds a running call; returns what takes it out (call it when the call ends, as often as
   * convenient), or undefined when the table is full (the call is then not cancellable this way;
   * its caller going away still stops it).
   */
  add(key: string, cancel: () => void): (() => void) | undefined {
    if (this.size >= this.max) return undefined;
    const entry: Entry = { cancel, live: true };
    const list = this.calls.get(key);
    if (list) list.push(entry);
    else this.calls.set(key, [entry]);
    this.size++;
    return () => this.remove(key, entry);
  }

  private remove(key: string, entry: Entry): void {
    if (!entry.live) return;
    entry.live = false;
    this.size--;
    const list = this.calls.get(key);
    if (!list) return;
    if (list.length === 1) {
      this.calls.delete(key);
      if (this.hashes.size > 0) this.hashes.delete(key);
    } else list.splice(list.indexOf(entry), 1);
  }

  /** Whether any call runs under `key` (one, or two a cancel cannot tell apart). */
  holds(key: string): boolean {
    return this.calls.has(key);
  }

  /**
   * A cancel relayed from another process: the call under the key whose cancelHash is `hash` is
   * cancelled as by `cancel` (one call under it, or nothing). The keys' hashes are worked out
   * here, once each, so a call that is never cancelled costs no hash.
   */
  cancelHashed(hash: string): boolean {
    for (const key of this.calls.keys()) {
      let h = this.hashes.get(key);
      if (h === undefined) {
        h = cancelHash(key);
        this.hashes.set(key, h);
      }
      if (h === hash) return this.cancel(key);
    }
    return false;
  }

  /**
   * Cancels the call under `key`, and says whether one was. Nothing is cancelled when no call is
   * (an unknown id, a call already answered) or when two are: the same caller with no session,
   * from two clients whose ids collide, and nothing says which the cancel meant.
   */
  cancel(key: string): boolean {
    const list = this.calls.get(key);
    if (list?.length !== 1) return false;
    const entry = list[0]!;
    this.remove(key, entry);
    entry.cancel();
    return true;
  }
}

/**
 * Ends a cancelled call's HTTP response without a JSON-RPC answer (the specification: the
 * cancelled request gets none): an event stream that ends at once when nothing was sent yet (a
 * request must be answered with JSON or a stream, and a stream may end without the response),
 * the stream as it stands otherwise. The response's close then stops the call, as a hang-up does.
 */
export function endUnanswered(res: ServerResponse): void {
  if (res.writableEnded || res.destroyed) return;
  if (!res.headersSent)
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.end();
}
