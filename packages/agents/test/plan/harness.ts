// Wires the fake provider into the real planner, executor and state file.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ApplyEvent, executePlan } from "../../src/apply/execute.js";
import { prepareDesired } from "../../src/plan/bind.js";
import { createPlan } from "../../src/plan/planner.js";
import type { DesiredResource } from "../../src/plan/types.js";
import { ProviderRuntime } from "../../src/providers/registry.js";
import type { Kind, Spec } from "../../src/providers/types.js";
import { openStateFile, readState } from "../../src/state/file-store.js";
import { FakeRemote } from "./fake-adapter.js";

export const KEY = Buffer.from("test-state-key");

export function res(kind: Kind, name: string, spec: Spec, dependsOn: string[] = []): DesiredResource {
  return { address: `provider_c.${kind}["${name}"]`, kind, name, provider: "provider_c", spec, dependsOn };
}

export class Harness {
  remote = new FakeRemote();
  dir = mkdtempSync(join(tmpdir(), "agents-engine-"));
  statePath = join(this.dir, "agents.state.json");
  events: ApplyEvent[] = [];
  runtime = new ProviderRuntime({
    adapters: [this.remote.adapter()],
    blocks: { provider_c: {} },
    project: "demo",
    configDir: this.dir,
  });

  async state() {
    return (await readState(this.statePath)).state;
  }

  async plan(
    desired: DesiredResource[],
    extra: { providers?: string[]; targets?: string[]; operation?: "destroy" } = {},
  ) {
    return createPlan({ desired, state: await this.state(), runtime: this.runtime, stateKey: KEY, ...extra });
  }

  async apply(
    desired: DesiredResource[],
    extra: { providers?: string[]; targets?: string[]; operation?: "destroy"; parallelism?: number } = {},
  ) {
    const store = await openStateFile(this.statePath, "test apply");
    try {
      const plan = await createPlan({
        desired,
        state: store.state,
        runtime: this.runtime,
        stateKey: KEY,
        ...extra,
      });
      const hashed = await prepareDesired(desired, this.runtime, KEY);
      this.events = [];
      const result = await executePlan({
        plan,
        desired,
        hashed,
        store,
        runtime: this.runtime,
        parallelism: extra.parallelism ?? 10,
        onEvent: (e) => this.events.push(e),
      });
      return { plan, result };
    } finally {
      await store.release();
    }
  }
}
