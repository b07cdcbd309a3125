// What every state backend promises (src/state/backend.ts), as one suite each backend's test file
// runs against its own storage: the file (state/file-store.test.ts) and PostgreSQL
// (state/postgres-store.e2e.test.ts). A run goes through LockedState, as the engine's do; what is
// stored is read back through a second backend object over the same storage, as another process
// would. What only one backend does (its file layout, its rows) stays in that backend's own tests.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { type StateBackend, StateConflictError } from "../../src/state/backend.js";
import { LockedState } from "../../src/state/locked-state.js";
import { type LockInfo, type ResourceState, type State, StateLockedError } from "../../src/state/types.js";
import { hookedBackend } from "./storage-hooks.js";

/** One empty place to store a state (a folder, a workspace), fresh for each test. */
export interface Storage {
  /** A new backend object over this storage: what another process would open. */
  open(): StateBackend;
  /** Removes what the test left (the backends it opened are closed first). */
  remove?(): Promise<void>;
}

export interface BackendContract {
  name: string;
  storage(): Promise<Storage>;
  /** Strings that no location or lock error may show (a password, a connection URL). */
  secrets?: () => string[];
  /**
   * Whether a holder whose lock was taken over by force-unlock writes nothing more (PostgreSQL:
   * the force-unlock ends its connection and writes are compare-and-set on serial). The file
   * backend's force-unlock is for a holder that is gone (docs/state.md, "Locking"): its lock file
   * is what keeps a second writer out, so it leaves this promise out; its whole writes are still
   * compare-and-set on the serial, so such a holder never replaces what the new one stored.
   */
  fencesTakenOverHolder: boolean;
}

const SINCE = "2026-01-01T00:00:00.000Z";

export const entry = (name: string, id = `agent_${name}`): ResourceState => ({
  address: `provider_c.agents["${name}"]`,
  kind: "agents",
  name,
  provider: "provider_c",
  id,
  external: false,
  spec: { instructions: "hi" },
  dependsOn: [],
  updatedAt: SINCE,
});

const intent = (name: string) => ({
  address: entry(name).address,
  kind: "agents" as const,
  name,
  provider: "provider_c" as const,
  since: SINCE,
});

const lockInfo = (command: string): LockInfo => ({
  id: randomUUID(),
  pid: process.pid,
  host: hostname(),
  command,
  since: new Date().toISOString(),
});

const names = (state: State) => Object.values(state.resources).map((r) => r.name);

export function describeStateBackend(contract: BackendContract): void {
  describe(`state backend contract: ${contract.name}`, () => {
    let storage: Storage | undefined;
    const opened: StateBackend[] = [];
    /** A fresh storage for this test; every backend it opens is closed after the test. */
    async function fresh(): Promise<() => StateBackend> {
      storage = await contract.storage();
      const place = storage;
      return () => {
        const backend = place.open();
        opened.push(backend);
        return backend;
      };
    }
    const add =
      (...added: string[]) =>
      (resources: Record<string, ResourceState>) => {
        for (const name of added) resources[entry(name).address] = entry(name);
      };

    afterEach(async () => {
      await Promise.all(opened.splice(0).map((b) => b.close()));
      await storage?.remove?.();
      storage = undefined;
    });

    it("a storage never written reads as empty, with a lineage; a run that only reads stores nothing", async () => {
      const open = await fresh();
      const first = await open().read();
      expect(first.exists).toBe(false);
      expect(first.state.serial).toBe(0);
      expect(first.state.resources).toEqual({});
      expect(first.state.lineage).toMatch(/\S/);
      const plan = await LockedState.open(open(), "agents plan");
      await plan.release();
      expect((await open().read()).exists).toBe(false);
    });

    it("what a run stores another instance reads back; the serial moves forward and the lineage stays", async () => {
      const open = await fresh();
      const run = await LockedState.open(open(), "agents apply");
      const lineage = run.state.lineage;
      await run.update(add("a"));
      await run.update(add("b"));
      // Stored as each update resolves, before the run ends.
      const during = (await open().read()).state;
      expect(names(during).sort()).toEqual(["a", "b"]);
      await run.release();
      const stored = await open().read();
      expect(stored.exists).toBe(true);
      expect(stored.state.lineage).toBe(lineage);
      expect(stored.state.resources[entry("a").address]).toEqual(entry("a"));
      expect(stored.state.serial).toBeGreaterThanOrEqual(2);

      const next = await LockedState.open(open(), "agents apply");
      expect(names(next.state).sort()).toEqual(["a", "b"]);
      await next.update((r) => {
        delete r[entry("a").address];
      });
      await next.release();
      const after = (await open().read()).state;
      expect(names(after)).toEqual(["b"]);
      expect(after.lineage).toBe(lineage);
      expect(after.serial).toBeGreaterThan(stored.state.serial);
    });

    it("updates that arrive together are committed together, and none is lost", async () => {
      const open = await fresh();
      const run = await LockedState.open(open(), "agents apply");
      const all = Array.from({ length: 20 }, (_, i) => `n${i}`);
      await Promise.all(all.map((name) => run.update(add(name))));
      expect(run.appends + run.writes).toBeLessThan(all.length);
      expect(names((await open().read()).state)).toHaveLength(all.length);
      await run.release();
      const { state } = await open().read();
      expect(names(state).sort()).toEqual([...all].sort());
      expect(state.serial).toBeGreaterThanOrEqual(all.length);
    });

    it("one holder at a time: a second lock fails at once naming the holder; a released lock is free", async () => {
      const open = await fresh();
      const holder = await LockedState.open(open(), "agents apply");
      const error = await LockedState.open(open(), "agents plan").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateLockedError);
      const message = (error as Error).message;
      expect(message).toContain('locked by "agents apply"');
      expect(message).toContain(`pid ${process.pid}`);
      expect(message).toContain(`agents force-unlock ${holder.lock.id}`);
      expect(await open().readLock()).toMatchObject({ id: holder.lock.id, command: "agents apply" });
      const backend = open();
      for (const secret of contract.secrets?.() ?? []) {
        expect(message).not.toContain(secret);
        expect(backend.location).not.toContain(secret);
      }
      await holder.release();
      expect(await open().readLock()).toBeUndefined();
      const again = await LockedState.open(open(), "agents plan");
      await again.release();
    });

    it("force-unlock needs the holder's id and frees the lock; the old holder's unlock leaves a new lock alone", async () => {
      const open = await fresh();
      await expect(open().forceUnlock("no-such-id")).rejects.toThrow(/no lock is held/);
      const first = lockInfo("agents apply");
      const old = await open().lock(first);
      await expect(open().forceUnlock("wrong-id")).rejects.toThrow(/lock id mismatch/);
      expect(await open().readLock()).toMatchObject({ id: first.id });
      expect(await open().forceUnlock(first.id)).toMatchObject({ id: first.id, command: "agents apply" });
      const second = lockInfo("agents plan");
      const current = await open().lock(second);
      await old.unlock();
      expect(await open().readLock()).toMatchObject({ id: second.id });
      await current.unlock();
      expect(await open().readLock()).toBeUndefined();
    });

    it("a run that dies leaves its journal to the next: an unrecorded create stays pending, a recorded step stays", async () => {
      const open = await fresh();
      const dying = await LockedState.open(open(), "agents apply");
      await dying.intend(intent("x"));
      await dying.intend(intent("y"));
      // y's answer came and was recorded; x's never did. Then the process dies (no release).
      await dying.update((r, s) => {
        r[entry("y").address] = entry("y");
        delete s.pending![entry("y").address];
      });
      const read = (await open().read()).state;
      expect(Object.keys(read.pending ?? {})).toEqual([entry("x").address]);
      expect(names(read)).toEqual(["y"]);
      expect(read.serial).toBe(1);
      await open().forceUnlock(dying.lock.id);

      const next = await LockedState.open(open(), "agents apply");
      expect(Object.keys(next.state.pending ?? {})).toEqual([entry("x").address]);
      expect(next.state.resources[entry("y").address]).toEqual(entry("y"));
      // The next run adopts x instead of creating it again, and settles its intent.
      await next.update((r, s) => {
        r[entry("x").address] = entry("x");
        delete s.pending![entry("x").address];
      });
      await next.release();
      const settled = (await open().read()).state;
      expect(names(settled).sort()).toEqual(["x", "y"]);
      expect(settled.pending ?? {}).toEqual({});
    });

    it("replace (state push) stores the given state whole: its lineage and resources, the serial still moving forward", async () => {
      const open = await fresh();
      const run = await LockedState.open(open(), "agents apply");
      await run.update(add("a", "b"));
      await run.release();
      const before = (await open().read()).state;
      const push = await LockedState.open(open(), "agents state push");
      const pushed: State = { ...before, lineage: "pushed-lineage", serial: 1, resources: {}, pending: {} };
      add("c")(pushed.resources);
      await push.replace(pushed);
      await push.release();
      const after = (await open().read()).state;
      expect(after.lineage).toBe("pushed-lineage");
      expect(names(after)).toEqual(["c"]);
      expect(after.serial).toBeGreaterThan(before.serial);
    });

    it("a store the storage refuses changes nothing stored, and the run goes on from what it had", async () => {
      const open = await fresh();
      let refuse = false;
      const check = () => {
        if (refuse) throw new Error("EIO: the storage refused the write");
      };
      const run = await LockedState.open(
        hookedBackend(open(), { beforeWrite: check, beforeAppend: check }),
        "apply",
      );
      await run.update(add("a"));
      refuse = true;
      // A step's record, then a whole write (persist): both refused, neither stored.
      await expect(run.update(add("lost"))).rejects.toThrow(/refused/);
      await expect(run.persist()).rejects.toThrow(/refused/);
      refuse = false;
      expect(names(run.state)).toEqual(["a"]);
      expect(names((await open().read()).state)).toEqual(["a"]);
      await run.update(add("b"));
      await run.release();
      expect(names((await open().read()).state).sort()).toEqual(["a", "b"]);
    });

    it("a whole write is compare-and-set on the serial: one that does not stand on the stored state is refused", async () => {
      const open = await fresh();
      const first = await LockedState.open(open(), "agents apply");
      await first.update(add("a"));
      await first.persist();
      await first.release();
      const storage = await open().lock(lockInfo("agents apply"));
      const { state, storedSerial } = storage.initial;
      const serial = storedSerial ?? state.serial;
      const { pending: _pending, ...whole } = state;
      const stale = { ...whole, serial: serial + 1, resources: {} };
      await expect(storage.write(stale, serial - 1)).rejects.toBeInstanceOf(StateConflictError);
      expect(names((await open().read()).state)).toEqual(["a"]);
      await storage.write({ ...stale, resources: state.resources }, serial);
      await storage.unlock();
      expect((await open().read()).state.serial).toBe(serial + 1);
    });

    // Where the backend fences a taken-over holder altogether, the row below proves more.
    if (!contract.fencesTakenOverHolder)
      it("a hung holder whose lock was force-unlocked ends without replacing what the new holder stored", async () => {
        const open = await fresh();
        const hung = await LockedState.open(open(), "agents apply");
        await hung.update(add("kept"));
        await open().forceUnlock(hung.lock.id);
        const next = await LockedState.open(open(), "agents apply");
        await next.update(add("after"));
        await next.persist();
        await next.release();
        // The hung run wakes up and ends: its whole write would put back its own view (no "after").
        await hung.release();
        expect(names((await open().read()).state).sort()).toEqual(["after", "kept"]);
      });

    if (contract.fencesTakenOverHolder) {
      it("a holder whose lock was taken over writes nothing more: its next write is refused", async () => {
        const open = await fresh();
        const hung = await LockedState.open(open(), "agents apply");
        await hung.update(add("kept"));
        await open().forceUnlock(hung.lock.id);
        const next = await LockedState.open(open(), "agents apply");
        await next.update(add("after"));
        await expect(hung.update(add("late"))).rejects.toBeInstanceOf(StateConflictError);
        await next.release();
        await hung.release();
        expect(names((await open().read()).state).sort()).toEqual(["after", "kept"]);
      });
    }
  });
}
