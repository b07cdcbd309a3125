import { createHash } from "node:crypto";
import type { Caller } from "./catalogue.js";
import { errorAnswer, type ModernRequest, SUBSCRIPTION_KEY } from "./rev2026.js";

/**
 * MCP 2026-07-28's `subscriptions/listen` for `notifications/tools/list_changed`, the one list
 * notification forge-mcp sends: a caller's tools/list changes when it loads a toolset with
 * discover_tools, so a change reaches the listen streams of the same credential only. Listeners
 * live in this process (a load on another replica is not seen; tools/list's ttlMs is 0 while a
 * load can still change the list, so a client that re-lists is never stale for long).
 */

type Json = Record<string, unknown>;
type Send = (notification: { jsonrpc: "2.0"; method: string; params: Json }) => void;

/** Who a listener listens for: the hash of the caller's token ("" with a server token). */
const keyOf = (caller: Caller | undefined) =>
  caller ? createHash("sha256").update(caller.token).digest("base64url") : "";

export class ListenBus {
  private readonly byCaller = new Map<string, Set<Send>>();

  /** How many listen streams are open (tests, metrics). */
  get size(): number {
    let n = 0;
    for (const s of this.byCaller.values()) n += s.size;
    return n;
  }

  /**
   * Opens a listen for the request: `send` gets the acknowledgement at once, then every change
   * of the caller's list, each stamped with the listen request's id. Answers the JSON-RPC error
   * to send instead when the request asks for nothing forge-mcp can send, or the function that
   * ends the listen.
   */
  open(
    request: ModernRequest,
    caller: Caller | undefined,
    send: Send,
  ): (() => void) | ReturnType<typeof errorAnswer> {
    const filter = request.params.notifications;
    if (typeof filter !== "object" || filter === null || Array.isArray(filter))
      return errorAnswer(request.id, -32602, "Invalid params: notifications must be an object");
    const meta = { [SUBSCRIPTION_KEY]: request.id };
    // only what was asked and forge-mcp has: tools/list_changed (no prompts, no resources)
    const honoured = (filter as Json).toolsListChanged === true ? { toolsListChanged: true } : {};
    send({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: honoured, _meta: meta },
    });
    if (!honoured.toolsListChanged) return () => {};
    const key = keyOf(caller);
    const listener: Send = (n) => send({ ...n, params: { ...n.params, _meta: meta } });
    const set = this.byCaller.get(key) ?? new Set<Send>();
    this.byCaller.set(key, set);
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.byCaller.get(key) === set) this.byCaller.delete(key);
    };
  }

  /** The caller's tools/list changed: tells its listeners. */
  listChanged(caller: Caller | undefined): void {
    const set = this.byCaller.get(keyOf(caller));
    if (!set) return;
    for (const l of set) l({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: {} });
  }
}
