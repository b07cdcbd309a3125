import { describe, expect, it } from "vitest";
import { CANCEL_HASH, CancelTable, callKey, cancelHash } from "../../src/mcp/cancels.js";

/**
 * The table a notifications/cancelled is looked up in (src/mcp/cancels.ts): a call is found only
 * by the same caller, in the same session, under the same id; a call that ended, or two under one
 * key, are not cancelled; no token is kept in clear; the table is bounded. The calls it stops over
 * real sockets, on every way they come, are test/tools/wait.test.ts's.
 */
describe("the cancel table", () => {
  const alice = { token: "a", clientId: "app", extra: { userId: 1 } };
  const aliceRefreshed = { token: "a2", clientId: "app", extra: { userId: 1 } };
  const bob = { token: "b", clientId: "app", extra: { userId: 2 } };
  const aliceElsewhere = { token: "a", clientId: "other-app", extra: { userId: 1 } };
  it.each([
    ["the same caller, the same id", alice, {}, 5, true],
    ["the same user with a refreshed token", aliceRefreshed, {}, 5, true],
    ["another user", bob, {}, 5, false],
    ["the same user through another OAuth client", aliceElsewhere, {}, 5, false],
    ["a server token's caller (no credential of its own)", undefined, {}, 5, false],
    ["the same id as a string", alice, {}, "5", false],
    ["another session", alice, { "mcp-session-id": "other" }, 5, false],
  ] as const)(
    "a call by alice (id 5, no session), cancelled by %s: %s",
    (_n, who, headers, id, cancelled) => {
      const table = new CancelTable();
      let stopped = false;
      table.add(callKey(alice, {}, 5), () => {
        stopped = true;
      });
      expect(table.cancel(callKey(who, headers, id))).toBe(cancelled);
      expect(stopped).toBe(cancelled);
      expect(table.count).toBe(cancelled ? 0 : 1);
    },
  );

  it("keeps no token in clear: a caller without a verified user is keyed by its token's hash", () => {
    const key = callKey({ token: "glpat-secret" }, {}, 1);
    expect(key).not.toContain("glpat-secret");
    expect(key).toBe(callKey({ token: "glpat-secret" }, {}, 1));
    expect(key).not.toBe(callKey({ token: "glpat-other" }, {}, 1));
  });

  it("ignores a call that ended and two calls under one key, and takes no call past its cap", () => {
    const table = new CancelTable(2);
    const leave = table.add("k", () => {
      throw new Error("ended already");
    });
    leave!();
    leave!();
    expect(table.count).toBe(0);
    expect(table.cancel("k")).toBe(false);
    const calls: string[] = [];
    const first = table.add("twice", () => calls.push("first"));
    table.add("twice", () => calls.push("second"));
    expect(table.cancel("twice")).toBe(false);
    expect(table.add("third", () => {})).toBeUndefined();
    expect(table.count).toBe(2);
    // one of the two ended: the other is the call the key names
    first!();
    expect(table.cancel("twice")).toBe(true);
    expect(calls).toEqual(["second"]);
    expect(table.count).toBe(0);
  });

  it.each([
    ["the hash of the call's key", "k", true],
    ["the hash of another key", "other", false],
    ["the key itself, not its hash", undefined, false],
  ] as const)("a cancel relayed from another replica, naming %s: cancelled %s", (_n, hashOf, cancelled) => {
    const table = new CancelTable();
    let stopped = false;
    table.add("k", () => {
      stopped = true;
    });
    expect(table.cancelHashed(hashOf === undefined ? "k" : cancelHash(hashOf))).toBe(cancelled);
    expect(stopped).toBe(cancelled);
    expect(table.count).toBe(cancelled ? 0 : 1);
  });

  it("relays no more than a hash, and finds a call by it under the rules of a local cancel", () => {
    const key = callKey({ token: "glpat-secret", clientId: "app", extra: { userId: 1 } }, {}, 42);
    expect(cancelHash(key)).toMatch(CANCEL_HASH);
    expect(cancelHash(key)).not.toBe(
      cancelHash(callKey({ token: "glpat-secret", clientId: "app", extra: { userId: 2 } }, {}, 42)),
    );
    const table = new CancelTable();
    const calls: string[] = [];
    // two calls under one key: a relayed cancel stops neither, as a local one would
    const first = table.add(key, () => calls.push("first"));
    table.add(key, () => calls.push("second"));
    expect(table.holds(key)).toBe(true);
    expect(table.cancelHashed(cancelHash(key))).toBe(false);
    // one ended (its key's hash was worked out above): the other is found by the same hash
    first!();
    expect(table.cancelHashed(cancelHash(key))).toBe(true);
    expect(calls).toEqual(["second"]);
    expect(table.holds(key)).toBe(false);
    // a new call under that key after the last one left is found again
    table.add(key, () => calls.push("third"));
    expect(table.cancelHashed(cancelHash(key))).toBe(true);
    expect(calls).toEqual(["second", "third"]);
  });
});
