import { createHash } from "node:crypto";
import { promises as fs, mkdirSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  FileBackend,
  forceUnlock,
  lockPathFor,
  openStateFile,
  readState,
  STATE_FILE_NAME,
} from "../../src/state/file-store.js";
import type { StartTimer } from "../../src/state/journal.js";
import { LockedState } from "../../src/state/locked-state.js";
import { hashSecrets, keyedHash, legacyStateKeys } from "../../src/state/secrets.js";
import { serialize } from "../../src/state/serialize.js";
import type { ResourceState, State } from "../../src/state/types.js";
import { upgradeState } from "../../src/state/upgrade.js";
import { describeStateBackend, entry } from "./backend-contract.js";
import { hookedFileBackend } from "./storage-hooks.js";

let dir: string;
let statePath: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agents-state-"));
  statePath = join(dir, STATE_FILE_NAME);
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

describeStateBackend({
  name: "file",
  fencesTakenOverHolder: false,
  async storage() {
    const place = mkdtempSync(join(tmpdir(), "agents-state-contract-"));
    return {
      open: () => new FileBackend(join(place, STATE_FILE_NAME)),
      remove: () => fs.rm(place, { recursive: true, force: true }),
    };
  },
});

describe("state file", () => {
  it("writes atomically with mode 0600, bumping serial and keeping lineage", async () => {
    const store = await openStateFile(statePath, "apply");
    const lineage = store.state.lineage;
    await store.update((r) => {
      r[entry("a").address] = entry("a");
    });
    await store.update((r) => {
      r[entry("b").address] = entry("b");
    });
    await store.release();
    expect(statSync(statePath).mode & 0o777).toBe(0o600);
    const { state } = await readState(statePath);
    // Two journaled records, then the whole write at release.
    expect(state.serial).toBe(3);
    expect(state.lineage).toBe(lineage);
    expect(Object.keys(state.resources)).toEqual([entry("a").address, entry("b").address]);
    const leftovers = (await fs.readdir(dir)).filter((f) => f !== STATE_FILE_NAME);
    expect(leftovers).toEqual([]);
  });

  it("commits concurrent updates in groups so none is lost", async () => {
    const store = await openStateFile(statePath, "apply");
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.update((r) => {
          r[entry(`n${i}`).address] = entry(`n${i}`);
        }),
      ),
    );
    // Each step is a record in the journal; the appends are batched, and nothing is written whole.
    expect(store.records).toBe(20);
    expect(store.appends).toBeLessThan(20);
    expect(store.writes).toBe(0);
    const during = await readState(statePath);
    expect(Object.keys(during.state.resources)).toHaveLength(20);
    expect(during.state.serial).toBe(20);
    await store.release();
    expect(store.writes).toBe(1);
    const { state } = await readState(statePath);
    expect(Object.keys(state.resources)).toHaveLength(20);
    expect(state.serial).toBe(21);
    await expect(fs.stat(`${statePath}.journal`)).rejects.toThrow();
  });

  it("records a step in the journal, not by rewriting the state; a crashed run's records are replayed", async () => {
    const first = await openStateFile(statePath, "apply");
    await first.update((r) => {
      r[entry("a").address] = entry("a");
    });
    const journal = await fs.readFile(`${statePath}.journal`, "utf8");
    expect(JSON.parse(journal.trim())).toEqual({
      op: "record",
      base: 0,
      address: entry("a").address,
      entry: entry("a"),
    });
    await expect(fs.stat(statePath)).rejects.toThrow();
    // The run dies here: its lock is broken by hand and the next run reads the journal.
    await forceUnlock(statePath, first.lock.id);
    const replayed = await readState(statePath);
    expect(Object.keys(replayed.state.resources)).toEqual([entry("a").address]);
    expect(replayed.state.serial).toBe(1);
    const second = await openStateFile(statePath, "apply");
    expect(second.state.resources[entry("a").address]).toEqual(entry("a"));
    await second.update((r) => {
      delete r[entry("a").address];
      r[entry("b").address] = entry("b");
    });
    await second.release();
    const { state } = await readState(statePath);
    expect(Object.keys(state.resources)).toEqual([entry("b").address]);
    expect(state.serial).toBe(4);
    await expect(fs.stat(`${statePath}.journal`)).rejects.toThrow();
  });

  it("never applies a record the stored state has moved past", async () => {
    const stored: State = {
      version: 2,
      serial: 5,
      lineage: "l",
      resources: { [entry("a").address]: entry("a") },
    };
    await fs.writeFile(statePath, serialize(stored));
    // Left by a run that died after its whole write (serial 5) and before compacting the journal.
    await fs.writeFile(
      `${statePath}.journal`,
      `${JSON.stringify({ op: "record", base: 4, address: entry("a").address, entry: null })}\n`,
    );
    const { state } = await readState(statePath);
    expect(state.serial).toBe(5);
    expect(Object.keys(state.resources)).toEqual([entry("a").address]);
  });

  it("a batch sees its own changes, a stored batch is what the state holds, a failed one changes nothing", async () => {
    // Each step is a batch of changes made in one turn (one journal append or one whole write);
    // some store, some fail (the journal and the state file are directories then). The state
    // always equals a model that applies the stored batches to a plain copy.
    const names = ["a", "b", "c", "d"];
    const op = fc.oneof(
      fc.record({ type: fc.constant("set" as const), name: fc.constantFrom(...names), tag: fc.nat(9) }),
      fc.record({ type: fc.constant("delete" as const), name: fc.constantFrom(...names) }),
      fc.record({
        type: fc.constant("copy" as const),
        from: fc.constantFrom(...names),
        to: fc.constantFrom(...names),
      }),
      fc.record({ type: fc.constant("defer" as const), tag: fc.nat(9) }),
    );
    type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;
    const apply = (o: Op, resources: Record<string, ResourceState>, state: State) => {
      if (o.type === "set") resources[entry(o.name).address] = { ...entry(o.name), id: `agent_${o.tag}` };
      else if (o.type === "delete") delete resources[entry(o.name).address];
      else if (o.type === "copy") {
        const found = resources[entry(o.from).address];
        if (found) resources[entry(o.to).address] = { ...found, address: entry(o.to).address };
      } else
        state.deferred = {
          ...state.deferred,
          [`k${o.tag}`]: {
            key: `k${o.tag}`,
            type: "t",
            provider: "provider_c",
            address: entry("a").address,
            data: {},
            description: "d",
            since: "2026-01-01T00:00:00.000Z",
          },
        };
    };
    // The storage refuses every write while `broken` (a full disk, a lost mount).
    let broken = false;
    const refuse = () => {
      if (broken) throw new Error("EIO: the disk refused the write");
    };
    const backend = hookedFileBackend(statePath, { beforeWrite: refuse, beforeAppend: refuse });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ ops: fc.array(op, { minLength: 1, maxLength: 4 }), fail: fc.boolean() }), {
          maxLength: 8,
        }),
        async (batches) => {
          await fs.rm(dir, { recursive: true, force: true });
          await fs.mkdir(dir);
          const store = await LockedState.open(backend, "apply");
          const model: State = structuredClone(store.state);
          for (const batch of batches) {
            broken = batch.fail;
            const outcomes = await Promise.allSettled(
              batch.ops.map((o) => store.update((resources, state) => apply(o, resources, state))),
            );
            broken = false;
            if (batch.fail) expect(outcomes.every((o) => o.status === "rejected")).toBe(true);
            else {
              expect(outcomes.every((o) => o.status === "fulfilled")).toBe(true);
              for (const o of batch.ops) apply(o, model.resources, model);
            }
            expect({ ...store.state.resources }).toEqual(model.resources);
            expect(store.state.deferred ?? {}).toEqual(model.deferred ?? {});
          }
          await store.release();
          const { state } = await readState(statePath);
          expect(state.resources).toEqual(model.resources);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("upgrades a v0 state explicitly", async () => {
    const v0 = {
      resources: [
        {
          type: "agents",
          name: "writer",
          provider: "provider_d",
          remote_id: "agent-1",
          spec: { model: "m" },
        },
        { type: "environments", name: "ext", provider: "provider_d", remote_id: "env-9", external: true },
      ],
    };
    await fs.writeFile(statePath, JSON.stringify(v0));
    const { state, upgradedFrom } = await readState(statePath);
    expect(upgradedFrom).toBe(0);
    expect(state.version).toBe(2);
    expect(state.resources['provider_d.agents["writer"]']).toMatchObject({ id: "agent-1", kind: "agents" });
    expect(state.resources['provider_d.environments["ext"]']?.external).toBe(true);
    expect(() => upgradeState({ version: 99, resources: {} }, "x")).toThrow(/newer than this build/);
  });

  it("refuses corrupt JSON without touching it", async () => {
    await fs.writeFile(statePath, "{not json");
    await expect(openStateFile(statePath, "apply")).rejects.toThrow(/not valid JSON/);
    await expect(fs.readFile(statePath, "utf8")).resolves.toBe("{not json");
    await expect(fs.stat(lockPathFor(statePath))).rejects.toThrow();
  });
});

describe("intent journal", () => {
  const intent = (name: string, since: string) => ({
    address: entry(name).address,
    kind: "agents" as const,
    name,
    provider: "provider_c" as const,
    since,
  });

  it("keeps an unrecorded create pending across runs, settles a recorded one, ignores a torn line", async () => {
    const store = await openStateFile(statePath, "apply");
    await store.intend(intent("a", "2026-01-01T00:00:00.000Z"));
    await store.intend(intent("b", "2026-01-01T00:00:00.000Z"));
    // b is recorded after its intent; a's process dies before recording it.
    await store.update((r) => {
      r[entry("b").address] = { ...entry("b"), updatedAt: "2026-01-01T00:00:01.000Z" };
    });
    await fs.appendFile(join(dir, "agents.state.json.journal"), '{"op":"create","addr');
    const { state } = await readState(statePath);
    expect(Object.keys(state.pending ?? {})).toEqual([entry("a").address]);
    expect(Object.keys(state.resources)).toEqual([entry("b").address]);
    await forceUnlock(statePath, store.lock.id);
  });

  it("keeps appending after the journal was compacted under the run (state push)", async () => {
    const store = await openStateFile(statePath, "apply");
    await store.intend(intent("a", "2026-01-01T00:00:00.000Z"));
    // replace() rewrites the journal to what is pending: the run's open journal file is gone.
    await store.replace({ ...store.state, resources: {}, pending: {} });
    await store.intend(intent("b", "2026-01-01T00:00:00.000Z"));
    await store.update((r) => {
      r[entry("c").address] = entry("c");
    });
    const lines = (await fs.readFile(`${statePath}.journal`, "utf8")).trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).address)).toEqual([entry("b").address, entry("c").address]);
    await forceUnlock(statePath, store.lock.id);
    const { state } = await readState(statePath);
    expect(Object.keys(state.pending ?? {})).toEqual([entry("b").address]);
    expect(Object.keys(state.resources)).toEqual([entry("c").address]);
  });

  it("a run abandoned without release closes its journal within a second, not at garbage collection", async () => {
    const openJournals = async () => {
      const fds = await fs.readdir("/proc/self/fd");
      const targets = await Promise.all(fds.map((fd) => fs.readlink(`/proc/self/fd/${fd}`).catch(() => "")));
      return targets.filter((t) => t === `${statePath}.journal`).length;
    };
    // The journal's idle timer, driven by hand: the test waits for no clock.
    const timers: Array<{ ms: number; fire: () => void; live: boolean }> = [];
    const startTimer: StartTimer = (ms, fire) => {
      const timer = { ms, fire, live: true };
      timers.push(timer);
      const cancel = () => {
        timer.live = false;
      };
      return { restart: () => {}, cancel };
    };
    const store = await LockedState.open(new FileBackend(statePath, startTimer), "apply");
    await store.intend(intent("a", "2026-01-01T00:00:00.000Z"));
    await store.intend(intent("b", "2026-01-01T00:00:00.000Z"));
    // Kept open while the run appends…
    expect(await openJournals()).toBe(1);
    await forceUnlock(statePath, store.lock.id);
    expect(await openJournals()).toBe(1);
    // …and closed once it stops (Node warns, and will throw, when a FileHandle is left to the GC).
    const idle = timers.filter((t) => t.live);
    expect(idle.map((t) => t.ms)).toEqual([1_000]);
    idle[0]!.fire();
    await vi.waitFor(async () => expect(await openJournals()).toBe(0));
  });

  it("a read-only run leaves the journal alone; a writing run compacts it away when settled", async () => {
    const writer = await openStateFile(statePath, "apply");
    await writer.intend(intent("a", "2026-01-01T00:00:00.000Z"));
    await forceUnlock(statePath, writer.lock.id);
    const journal = join(dir, "agents.state.json.journal");
    const before = await fs.readFile(journal, "utf8");
    const reader = await openStateFile(statePath, "plan");
    expect(Object.keys(reader.state.pending ?? {})).toEqual([entry("a").address]);
    await reader.release();
    expect(await fs.readFile(journal, "utf8")).toBe(before);
    const settle = await openStateFile(statePath, "apply");
    await settle.update((r, s) => {
      r[entry("a").address] = entry("a");
      delete s.pending![entry("a").address];
    });
    await settle.release();
    await expect(fs.stat(journal)).rejects.toThrow();
  });
});

describe("secrets in state", () => {
  it("stores a keyed hash that is not the plain hash and depends on the key", () => {
    const secret = "sk-live-123456";
    const a = keyedHash(Buffer.from("key-a"), secret);
    const b = keyedHash(Buffer.from("key-b"), secret);
    const plain = createHash("sha256").update(secret).digest("hex");
    expect(a).not.toContain(plain);
    expect(a).not.toBe(b);
    const spec = hashSecrets(
      { credentials: [{ name: "c", access_token: secret, url: "u" }] },
      ["credentials.*.access_token"],
      Buffer.from("key-a"),
    );
    expect(JSON.stringify(spec)).not.toContain(secret);
    expect(spec.credentials[0]!.url).toBe("u");
    expect(spec.credentials[0]!.access_token).toBe(a);
  });

  it("reads the per-user keys of older states but never creates one", () => {
    const env = { XDG_CONFIG_HOME: join(dir, "cfg") };
    const keyFile = join(dir, "cfg", "agents", "state-key");
    expect(legacyStateKeys(env)).toEqual([]);
    expect(() => statSync(keyFile)).toThrow();
    mkdirSync(join(dir, "cfg", "agents"), { recursive: true });
    writeFileSync(keyFile, "from-file\n", { mode: 0o600 });
    expect(legacyStateKeys({ ...env, AGENTS_STATE_KEY: "explicit" }).map(String)).toEqual([
      "explicit",
      "from-file",
    ]);
  });
});

describe("state text", () => {
  // The reference: the whole state through JSON.stringify, resources sorted by address.
  const reference = (state: State) => {
    const resources: Record<string, ResourceState> = {};
    for (const address of Object.keys(state.resources).sort()) resources[address] = state.resources[address]!;
    const { pending: _p, version, serial, lineage, resources: _r, ...rest } = state;
    return `${JSON.stringify({ version, serial, lineage, resources, ...rest }, null, 2)}\n`;
  };
  const entry = fc.record({
    address: fc.string(),
    kind: fc.constant("agents" as const),
    name: fc.string(),
    provider: fc.constant("provider_c" as const),
    id: fc.string(),
    external: fc.boolean(),
    spec: fc.dictionary(fc.string(), fc.jsonValue()),
    extra: fc.option(fc.dictionary(fc.string(), fc.jsonValue()), { nil: undefined }),
    dependsOn: fc.array(fc.string()),
    updatedAt: fc.string(),
  });

  it("is the sorted JSON of the whole state, whatever it holds", () => {
    fc.assert(
      fc.property(
        // Keys as addresses are: never integer-like (JavaScript would order those first).
        fc.dictionary(
          fc.string().map((name) => `provider_c.agents[${JSON.stringify(name)}]`),
          entry,
        ),
        fc.option(fc.dictionary(fc.string(), fc.jsonValue()), { nil: undefined }),
        fc.nat(),
        (resources, deferred, serial) => {
          const state = {
            version: 2,
            serial,
            lineage: "l",
            resources,
            ...(deferred ? { deferred } : {}),
          } as unknown as State;
          // Twice: the second pass comes from the per-entry cache.
          expect(serialize(state)).toBe(reference(state));
          expect(serialize(state)).toBe(reference(state));
        },
      ),
    );
  });

  it("a replaced entry is written anew, not from the cache", () => {
    const first = { address: "a", id: "1", spec: { x: 1 }, dependsOn: [] } as unknown as ResourceState;
    const state = { version: 2, serial: 1, lineage: "l", resources: { a: first } } as unknown as State;
    expect(serialize(state)).toContain('"x": 1');
    state.resources.a = { ...first, spec: { x: 2 } };
    expect(serialize(state)).toContain('"x": 2');
  });
});
