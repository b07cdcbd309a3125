import { describe, expect, it, vi } from "vitest";
import { executePlan } from "../../src/apply/execute.js";
import { walkGraph } from "../../src/model/graph.js";
import { prepareDesired } from "../../src/plan/bind.js";
import { createPlan } from "../../src/plan/planner.js";
import { openStateFile } from "../../src/state/file-store.js";
import { LockedState } from "../../src/state/locked-state.js";
import { Harness, KEY, res } from "../plan/harness.js";
import { hookedFileBackend } from "../state/storage-hooks.js";

describe("DAG walk", () => {
  it("starts a task as soon as its own dependencies finish (not by layers)", async () => {
    const order: string[] = [];
    const gate: Record<string, () => void> = {};
    const task = (id: string, deps: string[], waitFor?: string) => ({
      id,
      deps,
      run: async () => {
        order.push(`start ${id}`);
        if (waitFor) await new Promise<void>((r) => (gate[waitFor] = r));
        order.push(`end ${id}`);
      },
    });
    const run = walkGraph([task("slow", [], "slow"), task("fast", []), task("afterFast", ["fast"])], {
      parallelism: 5,
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toContain("end afterFast");
    gate.slow!();
    const result = await run;
    expect(result.done.sort()).toEqual(["afterFast", "fast", "slow"]);
  });

  it("starts the task heading the longest chain first", async () => {
    const order: string[] = [];
    const t = (id: string, deps: string[] = []) => ({ id, deps, run: async () => void order.push(id) });
    await walkGraph([t("lone"), t("other"), t("c1"), t("c2", ["c1"]), t("c3", ["c2"])], { parallelism: 1 });
    expect(order[0]).toBe("c1");
  });

  it("never exceeds the parallelism bound", async () => {
    let inFlight = 0;
    let peak = 0;
    const tasks = Array.from({ length: 12 }, (_, i) => ({
      id: `t${i}`,
      deps: [],
      run: async () => {
        peak = Math.max(peak, ++inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
      },
    }));
    await walkGraph(tasks, { parallelism: 3 });
    expect(peak).toBe(3);
  });

  it("skips the dependents of a failed task, transitively, and carries on elsewhere", async () => {
    const ran: string[] = [];
    const ok = (id: string, deps: string[] = []) => ({ id, deps, run: async () => void ran.push(id) });
    const result = await walkGraph(
      [
        { id: "bad", deps: [], run: async () => Promise.reject(new Error("boom")) },
        ok("child", ["bad"]),
        ok("grandchild", ["child"]),
        ok("independent"),
      ],
      { parallelism: 2 },
    );
    expect(ran).toEqual(["independent"]);
    expect(result.failed.map((f) => f.id)).toEqual(["bad"]);
    expect(result.skipped).toEqual([
      { id: "child", because: "bad failed" },
      { id: "grandchild", because: "bad failed" },
    ]);
  });

  it("refuses a cycle before running anything: validation should have rejected it", async () => {
    const ran: string[] = [];
    const t = (id: string, deps: string[]) => ({ id, deps, run: async () => void ran.push(id) });
    await expect(
      walkGraph([t("free", []), t("a", ["b"]), t("b", ["a"])], { parallelism: 2 }),
    ).rejects.toThrow("internal error: dependency cycle a → b → a");
    expect(ran).toEqual([]);
  });
});

const env = res("environments", "sandbox", { config: { type: "cloud" } });
const agent = res("agents", "writer", { model: "m", uses: ["environments/sandbox"] }, [env.address]);

describe("apply", () => {
  it("journals each step, emits progress, and exits unsuccessful on a failed step", async () => {
    const h = new Harness();
    h.remote.failOn.add(`create ${env.address}`);
    const { result } = await h.apply([env, agent]);
    expect(result.ok).toBe(false);
    expect(result.failed[0]!.message).toContain("fake: create");
    expect(result.skipped).toEqual([{ address: agent.address, because: `${env.address} failed` }]);
    expect(h.events.map((e) => e.type)).toEqual(["start", "failed", "skipped"]);
    h.remote.failOn.clear();
    const again = await h.apply([env, agent]);
    expect(again.result.ok).toBe(true);
    expect(Object.keys((await h.state()).resources).sort()).toEqual([agent.address, env.address].sort());
    expect(h.remote.objects.size).toBe(2);
  });

  it("adopts a resource created by a run that died before recording it", async () => {
    const h = new Harness();
    const handler = h.remote.adapter().kinds.environments!;
    const realCreate = handler.create;
    let crash = true;
    h.runtime = new (h.runtime.constructor as any)({
      adapters: [
        {
          ...h.remote.adapter(),
          kinds: {
            ...h.remote.adapter().kinds,
            environments: {
              ...handler,
              create: async (ctx: any, spec: any) => {
                const made = await realCreate(ctx, spec);
                if (crash) throw new Error("connection lost after the remote created it");
                return made;
              },
            },
          },
        },
      ],
      blocks: { provider_c: {} },
      project: "demo",
      configDir: h.dir,
    });
    const first = await h.apply([env]);
    expect(first.result.ok).toBe(false);
    expect((await h.state()).pending?.[env.address]).toBeDefined();
    crash = false;
    const plan = await h.plan([env]);
    expect(plan.actions[0]).toMatchObject({ action: "adopt" });
    const second = await h.apply([env]);
    expect(second.result.ok).toBe(true);
    expect(h.remote.objects.size).toBe(1);
    const state = await h.state();
    expect(state.pending).toBeUndefined();
    expect(state.resources[env.address]!.id).toBe([...h.remote.objects.keys()][0]);
  });

  it("adopts on a create conflict instead of failing", async () => {
    const h = new Harness();
    await h.apply([env]);
    const id = (await h.state()).resources[env.address]!.id;
    // Lose the state while the object is out of sight (a lost state's plan would adopt it): it
    // reappears between the plan and the create, which conflicts and adopts it.
    const { rmSync } = await import("node:fs");
    rmSync(h.statePath);
    const hidden = h.remote.objects.get(id)!;
    h.remote.objects.delete(id);
    const call = h.remote.call.bind(h.remote);
    h.remote.call = (label, fn) => {
      if (label === `create ${env.address}`) h.remote.objects.set(id, hidden);
      return call(label, fn);
    };
    h.remote.conflictOnCreate.add(env.address);
    const { result } = await h.apply([env]);
    expect(result.ok).toBe(true);
    expect((await h.state()).resources[env.address]!.id).toBe(id);
    expect(h.events.some((e) => e.type === "warning" && e.message.includes("adopted"))).toBe(true);
  });

  it("create-before-destroy replacement keeps the resource available", async () => {
    const h = new Harness();
    const skill = res("skills", "s", { source: "a" });
    await h.apply([skill]);
    h.remote.calls = [];
    const { result } = await h.apply([{ ...skill, spec: { source: "b" } }]);
    expect(result.ok).toBe(true);
    const writes = h.remote.calls.filter((c) => !c.startsWith("read"));
    expect(writes).toEqual([`create ${skill.address}`, `remove ${skill.address}`]);
    expect(h.remote.objects.size).toBe(1);
  });

  it("destroy walks the graph in reverse and a later destroy resumes a partial one", async () => {
    const h = new Harness();
    await h.apply([env, agent]);
    h.remote.failOn.add(`remove ${agent.address}`);
    const partial = await h.apply([env, agent], { operation: "destroy" });
    expect(partial.result.ok).toBe(false);
    expect(partial.result.skipped.map((s) => s.address)).toEqual([env.address]);
    expect(Object.keys((await h.state()).resources).sort()).toEqual([agent.address, env.address].sort());
    h.remote.failOn.clear();
    h.remote.calls = [];
    const rest = await h.apply([env, agent], { operation: "destroy" });
    expect(rest.result.ok).toBe(true);
    expect(h.remote.calls.filter((c) => c.startsWith("remove"))).toEqual([
      `remove ${agent.address}`,
      `remove ${env.address}`,
    ]);
    expect(h.remote.objects.size).toBe(0);
    expect((await h.state()).resources).toEqual({});
  });

  it("an interrupt stops steps before their first call, never between a step's calls", async () => {
    const h = new Harness();
    const skill = res("skills", "s", { source: "a" });
    const other = res("environments", "later", { config: { type: "cloud" } });
    // Something after the skill makes its chain the longest, so the skill's step starts first.
    const user = res("agents", "user", { model: "m" }, [skill.address]);
    await h.apply([skill]);
    h.remote.calls = [];
    // Ctrl-C lands while the replacement's create is in flight: the step still removes the old
    // skill (else it would be orphaned), and the steps that had not called anything are skipped.
    const controller = new AbortController();
    const call = h.remote.call.bind(h.remote);
    h.remote.call = (label, fn) => {
      if (label === `create ${skill.address}`) controller.abort();
      return call(label, fn);
    };
    const desired = [{ ...skill, spec: { source: "b" } }, other, user];
    const store = await openStateFile(h.statePath, "test apply");
    try {
      const plan = await createPlan({ desired, state: store.state, runtime: h.runtime, stateKey: KEY });
      const result = await executePlan({
        plan,
        desired,
        hashed: await prepareDesired(desired, h.runtime, KEY),
        store,
        runtime: h.runtime,
        // One slot: the environment's create waits behind the skill's calls.
        parallelism: 1,
        signal: controller.signal,
      });
      // The environment's step had started and was waiting for the slot; the agent's never started.
      expect(result.skipped.map((x) => [x.address, x.because]).sort()).toEqual([
        [user.address, "interrupted"],
        [other.address, "interrupted"],
      ]);
    } finally {
      await store.release();
    }
    // Plan's owned-object lookups (`find`) for the two unrecorded resources are not apply steps.
    expect(h.remote.calls.filter((c) => !c.startsWith("read") && !c.startsWith("find"))).toEqual([
      `create ${skill.address}`,
      `remove ${skill.address}`,
    ]);
    expect(h.remote.objects.size).toBe(1);
  });

  it("a step records its result outside its --parallelism slot", async () => {
    const h = new Harness();
    // Every record (journal append or state write) waits for the gate: with the slot held through it, the second
    // create could never start while the first one's record is blocked.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const backend = hookedFileBackend(h.statePath, {
      beforeWrite: () => gate,
      beforeAppend: async (entries) => {
        if (entries.some((e) => e.op === "record")) await gate;
      },
    });
    const store = await LockedState.open(backend, "test apply");
    try {
      const many = ["a", "b", "c"].map((n) => res("environments", n, { config: { type: "cloud" } }));
      const plan = await createPlan({ desired: many, state: store.state, runtime: h.runtime, stateKey: KEY });
      const run = executePlan({
        plan,
        desired: many,
        hashed: await prepareDesired(many, h.runtime, KEY),
        store,
        runtime: h.runtime,
        parallelism: 1,
      });
      // The second step's create runs while the first step's record waits (the walk keeps one
      // step per slot beside the steps in a call, so the third waits for a step to finish).
      await vi.waitFor(() => expect(h.remote.calls.filter((c) => c.startsWith("create"))).toHaveLength(2));
      expect(h.remote.maxInFlight).toBe(1);
      open();
      expect((await run).ok).toBe(true);
      expect(Object.keys(store.state.resources)).toHaveLength(3);
    } finally {
      open();
      await store.release();
    }
  });

  it("runs independent resources in parallel up to --parallelism", async () => {
    const h = new Harness();
    // Long enough that the serialized state writes between calls cannot hide the overlap.
    h.remote.delayMs = 60;
    const many = Array.from({ length: 8 }, (_, i) =>
      res("environments", `e${i}`, { config: { type: "cloud" } }),
    );
    await h.apply(many, { parallelism: 4 });
    expect(h.remote.maxInFlight).toBe(4);
  });
});
