// Removal preflight and deferred tasks (apply/deferred.ts), one case per default-memory-store
// destroy rule the engine is responsible for: capture before removal (1), bounded cleanup that
// may stay unfinished (2-3), abort before any deletion when the preflight cannot resolve (4).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hasDeferred, preflightRemovals, runDeferred } from "../../src/apply/deferred.js";
import type { Plan, PlannedAction } from "../../src/plan/types.js";
import { ProviderRuntime } from "../../src/providers/registry.js";
import type { ProviderAdapter } from "../../src/providers/types.js";
import { openStateFile } from "../../src/state/file-store.js";
import type { LockedState } from "../../src/state/locked-state.js";

const ADDRESS = 'provider_c.agents["concierge"]';
let store: LockedState | undefined;
afterEach(async () => {
  await store?.release();
  store = undefined;
});

interface Behaviour {
  preflight: "defer" | "fail" | "nothing";
  cleanup: () => Promise<void>;
}

function setup(behaviour: Behaviour) {
  const ran: Record<string, unknown>[] = [];
  const adapter: ProviderAdapter = {
    name: "provider_c",
    connect: () => ({
      http: {
        request: async () => ({ status: 200, headers: new Headers(), body: {} }),
        addSecret() {},
      } as never,
    }),
    kinds: {
      agents: {
        create: async () => ({ id: "x", spec: {} }),
        read: async () => "gone",
        remove: async () => {},
        async preflightRemove(ctx, id) {
          if (behaviour.preflight === "fail") throw new Error("identity lookup failed");
          if (behaviour.preflight === "defer")
            await ctx.defer!({
              type: "store.delete",
              key: `k-${id}`,
              data: { store_id: "mem_1" },
              description: "delete store mem_1",
            });
        },
      },
    },
    deferred: {
      "store.delete": {
        async run(_ctx, data) {
          ran.push(data);
          await behaviour.cleanup();
        },
      },
    },
  };
  const dir = mkdtempSync(join(tmpdir(), "agents-deferred-"));
  const runtime = new ProviderRuntime({
    adapters: [adapter],
    blocks: { provider_c: {} },
    project: "demo",
    configDir: dir,
  });
  return { runtime, ran, statePath: join(dir, "agents.state.json") };
}

const deleteAction: PlannedAction = {
  address: ADDRESS,
  kind: "agents",
  name: "concierge",
  provider: "provider_c",
  action: "delete",
  reason: "not declared",
  changes: [],
  remoteId: "tmpl_1",
  dependsOn: [],
  warnings: [],
};
const plan = { actions: [deleteAction] } as unknown as Plan;

async function withResource(statePath: string): Promise<LockedState> {
  const s = await openStateFile(statePath, "test");
  await s.update((resources) => {
    resources[ADDRESS] = {
      address: ADDRESS,
      kind: "agents",
      name: "concierge",
      provider: "provider_c",
      id: "tmpl_1",
      external: false,
      spec: {},
      dependsOn: [],
      updatedAt: new Date().toISOString(),
    };
  });
  return s;
}

const signal = new AbortController().signal;
const warn = () => {};

describe("removal preflight and deferred tasks", () => {
  it("rule 4: a failing preflight aborts before anything is deleted or recorded", async () => {
    const { runtime, statePath } = setup({ preflight: "fail", cleanup: async () => {} });
    store = await withResource(statePath);
    await expect(preflightRemovals(plan, store, runtime, signal, warn)).rejects.toThrow(
      /nothing was deleted: identity lookup failed/,
    );
    expect(store.state.resources[ADDRESS]).toBeDefined();
    expect(hasDeferred(store)).toBe(false);
  });

  it("rule 1: a deferred task is in state before any removal", async () => {
    const { runtime, statePath } = setup({ preflight: "defer", cleanup: async () => {} });
    store = await withResource(statePath);
    await preflightRemovals(plan, store, runtime, signal, warn);
    expect(store.state.deferred?.["k-tmpl_1"]).toMatchObject({
      type: "store.delete",
      address: ADDRESS,
      data: { store_id: "mem_1" },
    });
  });

  it("a task waits while its resource is still in state", async () => {
    const { runtime, statePath, ran } = setup({ preflight: "defer", cleanup: async () => {} });
    store = await withResource(statePath);
    await preflightRemovals(plan, store, runtime, signal, warn);
    expect(await runDeferred(store, runtime, signal, warn)).toEqual({ done: [], failed: [] });
    expect(ran).toEqual([]);
  });

  it("rules 2-3: an unfinished cleanup stays in state as a partial destroy; the next run resumes it", async () => {
    let fail = true;
    const { runtime, statePath, ran } = setup({
      preflight: "defer",
      cleanup: async () => {
        if (fail) throw new Error("still mounted");
      },
    });
    store = await withResource(statePath);
    await preflightRemovals(plan, store, runtime, signal, warn);
    await store.update((resources) => {
      delete resources[ADDRESS];
    });
    const first = await runDeferred(store, runtime, signal, warn);
    expect(first.failed).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/partial destroy: still mounted/) }),
    ]);
    expect(hasDeferred(store)).toBe(true);
    fail = false;
    const second = await runDeferred(store, runtime, signal, warn);
    expect(second.done).toHaveLength(1);
    expect(hasDeferred(store)).toBe(false);
    expect(store.state.deferred).toBeUndefined();
    expect(ran).toHaveLength(2);
  });
});
