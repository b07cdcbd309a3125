// The kill matrix of issue 38: every provider, each with a project of every kind it manages
// (kill-projects.ts), through three phases — apply, a forced replacement, destroy — on the file
// state and on PostgreSQL. In each phase the run is killed (kill -9, in-process: kill-switch.ts)
// at fixed provider requests, once or several times in a row, then a run without kills finishes
// the phase. After each finishing run, read from the simulators' own state: no object twice, none
// that the state does not name (an orphan), the declared credentials and memory entries, and a
// plan with no changes; after destroy, nothing of the project left and the state empty.
// Each of the four storm paths issue 38 names has its row (marked below), and so does a fifth the
// matrix found (provider_b Forward files); the randomized storm over 97 resources is bench/storm.mjs.
import { join } from "node:path";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stateBackendForConfig } from "../../src/engine/state-config.js";
import type { Plan } from "../../src/index.js";
import {
  type NamedObject,
  namedObjects,
  removedAfterAll,
  simState,
  startProviderAInstantUploads,
} from "../e2e/project.js";
import { describeEachStateBackend } from "../state/each-backend.js";
import { inProcessProject } from "./in-process.js";
import { KILL_PROJECTS, writeKillProject } from "./kill-projects.js";
import { type KillPoint, KillSwitch, killedRun, killLabel } from "./kill-switch.js";
import { KEYS, type Provider } from "./rows.js";

type Phase = "apply" | "replace" | "destroy";

const served = (method: string, path: string, nth = 1): KillPoint => ({ method, path, nth, served: true });
const unsent = (method: string, path: string, nth = 1): KillPoint => ({ method, path, nth, served: false });

/**
 * Where each phase's runs die, one run per point, in order. A later point is a request that the
 * earlier run could not have sent yet (it depends on what the earlier point cut), or the same
 * point never sent (the next run sends it again), so every point is reached whatever the order
 * of parallel steps.
 */
const KILLS: Record<Provider, Record<Phase, KillPoint[]>> = {
  provider_a: {
    // Storm path 4: killed between the skill package upload and the skill create, twice in a row.
    apply: [unsent("POST", "/skills$"), unsent("POST", "/skills$")],
    // The new vault of a create-before-destroy replacement made, its answer lost.
    replace: [served("POST", "/vaults$")],
    destroy: [served("DELETE", "/", 2)],
  },
  provider_b: {
    // A Forward agent's inherited file uploaded, the Template create never sent, twice in a row:
    // each run uploaded the file again and none was ever deleted, until its uploads were journaled.
    // Then the Template made with that upload, its answer lost: adopted with the file it uses.
    apply: [
      served("POST", "/cloud/vaults$"),
      unsent("POST", "/forward/templates$"),
      unsent("POST", "/forward/templates$"),
      served("POST", "/forward/templates$"),
    ],
    replace: [served("POST", "/cloud/vaults$")],
    destroy: [served("DELETE", "/", 3)],
  },
  provider_c: {
    // Storm path 3: killed between the deployment's source upload and its create, twice.
    apply: [served("POST", "/vaults$"), unsent("POST", "/deployments$"), unsent("POST", "/deployments$")],
    replace: [served("POST", "/skills$")],
    // Between the deployment's archive and its upload's delete.
    destroy: [unsent("DELETE", "/files/")],
  },
  provider_d: {
    // Storm path 1: a vault's create answer lost (adopted, it must get its credential).
    apply: [served("POST", "/vaults$"), served("POST", "/agents$")],
    // Storm path 2: the new file of a replacement uploaded, its answer lost.
    replace: [served("POST", "/files$")],
    destroy: [served("DELETE", "/", 2)],
  },
};

const PROVIDERS = Object.keys(KILLS) as Provider[];
const SECRET = "kill-matrix-secret-3307";
const sims = new Map<Provider, RunningSim>();
const switches = new Map<Provider, KillSwitch>();
const dirs = removedAfterAll();

beforeAll(async () => {
  for (const p of PROVIDERS) {
    const sim =
      p === "provider_a" ? await startProviderAInstantUploads() : await startSim(p, { quiet: true });
    sims.set(p, sim);
    switches.set(p, await KillSwitch.start(sim));
  }
});
afterAll(async () => {
  await Promise.all([...switches.values()].map((s) => s.close()));
  await Promise.all([...sims.values()].map((s) => s.close()));
});

type Live = NamedObject;

/** Children of another object, counted against the declaration and checked through their parent. */
const CHILDREN = new Set(["credentials", "memories"]);

/** The project's live objects on the simulator (the platform's own, histories and runs left out). */
async function live(sim: RunningSim): Promise<Live[]> {
  return namedObjects(await simState(sim));
}

/**
 * Live objects by kind, parent and name: two under one key are one object twice. provider_a skill
 * packages are uploaded under the skill's name plus a unique suffix: a skill keeps one package per
 * version, so once converged each is its own key (and must be named by the state); while runs are
 * killed, `bySkill` puts a skill's packages under one key, to see them pile up.
 */
function byName(objects: Live[], bySkill = false): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const o of objects) {
    const name = bySkill ? o.name.replace(/\.[0-9a-f]{12}\.zip$/, ".zip") : o.name;
    const key = `${o.kind} ${o.parent} ${name}`;
    groups.set(key, [...(groups.get(key) ?? []), o.id]);
  }
  return groups;
}

describe("the kill matrix covers every provider", () => {
  it("has a project and the kill points of each phase for each provider", () => {
    expect(Object.keys(KILL_PROJECTS).sort()).toEqual(Object.keys(KEYS).sort());
    for (const p of PROVIDERS)
      for (const phase of ["apply", "replace", "destroy"] as const)
        expect(KILLS[p][phase].length).toBeGreaterThan(0);
  });
});

describeEachStateBackend(
  (backend) => `kill matrix (${backend} state)`,
  (state) => {
    describe.each(PROVIDERS)("%s", (provider) => {
      let dir: string;
      const sim = () => sims.get(provider)!;
      const kill = () => switches.get(provider)!;
      const env = () => ({
        ...state,
        AGENTS_STATE_KEY: "kill-matrix-key",
        API_KEY: KEYS[provider],
        SECRET,
        URL: kill().url,
      });
      const agents = () => inProcessProject(dir, env());

      beforeAll(async () => {
        await fetch(`${sim().origin}/_sim/reset`, { method: "POST" });
        if (provider === "provider_a")
          await fetch(`${sim().origin}/_sim/seed`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              settings: { file_audit_polls: 0, file_audit_ms: 0, skill_scan_polls: 0, skill_scan_ms: 0 },
            }),
          });
        dir = await writeKillProject(provider, 1);
        dirs.push(dir);
      });

      /** The state as its backend holds it (the journal replayed), as the next run reads it. */
      async function stored() {
        const { backend: store } = await stateBackendForConfig(join(dir, "agents.yaml"), {
          ...process.env,
          ...env(),
        });
        try {
          return (await store.read()).state;
        } finally {
          await store.close();
        }
      }

      /**
       * Each point kills one run; a point repeated must leave no more objects than the run before.
       * Returns the plan of the first killed run.
       */
      async function killAt(command: "apply" | "destroy", points: KillPoint[]): Promise<Plan | undefined> {
        let before = new Map<string, string[]>();
        let first: Plan | undefined;
        for (const [i, point] of points.entries()) {
          const plan = await killedRun(dir, env(), kill(), command, point);
          first ??= plan;
          const after = byName(await live(sim()), true);
          if (i > 0 && killLabel(point) === killLabel(points[i - 1]!)) {
            const grew = [...after].filter(
              ([key, ids]) => ids.length > Math.max(1, before.get(key)?.length ?? 0),
            );
            expect(grew, `killed again at ${killLabel(point)}: nothing piles up`).toEqual([]);
          }
          before = after;
        }
        return first;
      }

      async function expectConverged(label: string): Promise<void> {
        const plan = await agents().plan();
        expect(plan.code, `${label}: plan after the finishing run\n${plan.text}${plan.error}`).toBe(0);
        const objects = await live(sim());
        const resources = (await stored()).resources;
        const text = JSON.stringify(resources);
        // Nothing the state records is gone: each resource's object (provider_d deployments are
        // local only) and each upload it uses (a file id anywhere in its extra).
        const ids = new Set(objects.map((o) => o.id));
        const recorded = Object.values(resources).flatMap((r) => [
          ...(provider === "provider_d" && r.kind === "deployments" ? [] : [r.id]),
          ...(JSON.stringify(r.extra ?? {}).match(/"file[-_][A-Za-z0-9]{10,}"/g) ?? []).map((id) =>
            id.slice(1, -1),
          ),
        ]);
        expect(
          recorded.filter((id) => !ids.has(id)),
          `${label}: recorded, but gone from the provider`,
        ).toEqual([]);
        const twice = [...byName(objects)].filter(([, ids]) => ids.length > 1);
        expect(twice, `${label}: objects twice`).toEqual([]);
        const orphans = objects.filter(
          (o) => !text.includes(o.id) && !(CHILDREN.has(o.kind) && text.includes(o.parent)),
        );
        expect(orphans, `${label}: objects the state does not name`).toEqual([]);
        const declared = KILL_PROJECTS[provider];
        expect(objects.filter((o) => o.kind === "credentials").length, `${label}: credentials`).toBe(
          declared.credentials,
        );
        expect(objects.filter((o) => o.kind === "memories").length, `${label}: memory entries`).toBe(
          declared.memories,
        );
      }

      it("apply: killed, then converged", async () => {
        await killAt("apply", KILLS[provider].apply);
        const finish = await agents().apply();
        expect(finish.code, `${finish.text}\n${finish.error}`).toBe(0);
        await expectConverged("apply");
      });

      it("forced replacement: killed, then converged", async () => {
        await writeKillProject(provider, 2, dir);
        const plan = await killAt("apply", KILLS[provider].replace);
        const replacing = plan?.actions.filter((a) => a.action === "replace").map((a) => a.address) ?? [];
        expect(replacing).toEqual(expect.arrayContaining(KILL_PROJECTS[provider].replaced));
        const finish = await agents().apply();
        expect(finish.code, `${finish.text}\n${finish.error}`).toBe(0);
        await expectConverged("replace");
      });

      it("destroy: killed, then nothing left and the state empty", async () => {
        await killAt("destroy", KILLS[provider].destroy);
        const finish = await agents().destroy();
        expect(finish.code, `${finish.text}\n${finish.error}`).toBe(0);
        // provider_d skills have no delete on the wire: destroy releases them from state, as
        // documented (docs/engine.md, Crash safety); every other object must be gone.
        const left = (await live(sim())).filter((o) => !(provider === "provider_d" && o.kind === "skills"));
        expect(left, "left after destroy").toEqual([]);
        const after = await stored();
        expect({ resources: after.resources, pending: Object.keys(after.pending ?? {}) }).toEqual({
          resources: {},
          pending: [],
        });
      });
    });
  },
);
