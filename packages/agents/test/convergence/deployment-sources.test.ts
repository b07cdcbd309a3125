// A deployment's file resource from a local `source`, one row per provider that uploads it for the
// deployment (provider_a, provider_b, provider_c; provider_d's deployments are local-only and upload
// the file at each run, so there is nothing to compare), through the CLI's steps in-process on the
// provider's simulator: an edit of the file's content plans a change of its digest, apply uploads
// the new content, points the deployment at it and deletes the old upload, the next plan is clean,
// and destroy leaves no file behind.
import { promises as fs } from "node:fs";
import { join } from "node:path";
import type { RunningSim } from "@agents/sims";
import { describe, expect, it } from "vitest";
import {
  liveFileIds,
  removedAfterAll,
  simState,
  simulatorForFile,
  startProviderAInstantUploads,
} from "../e2e/project.js";
import { inProcessProject } from "./in-process.js";
import { AGENT_MODELS, type SimProvider, writeSimProject } from "./sim-project.js";

type Provider = Exclude<SimProvider, "provider_d">;

const body = (provider: Provider, mount?: string) => `environments:
  e:
    config:
      type: cloud
agents:
  runner:
    model: ${AGENT_MODELS[provider]}
    instructions: Be brief.
    environment: e
deployments:
  nightly:
    agent: runner
    environment: e
    resources:
      - type: file
        source: docs/brief.md
${mount ? `        mount_path: ${mount}\n` : ""}    initial_events:
      - type: user.message
        content: Read the brief.
`;

const a = simulatorForFile("provider_a", startProviderAInstantUploads);
const b = simulatorForFile("provider_b");
const c = simulatorForFile("provider_c");
/** `mount`: the file resource's mount_path; provider_a requires one (AGENTS1509). */
const ROWS: Array<{ provider: Provider; sim: RunningSim; mount?: string; form: string }> = [
  { provider: "provider_a", sim: a, mount: "brief.md", form: "mounted at a path" },
  { provider: "provider_b", sim: b, mount: "brief.md", form: "mounted at a path" },
  { provider: "provider_c", sim: c, mount: "brief.md", form: "mounted at a path" },
  // The provider mounts it at /workspace/brief.md: that is no drift.
  { provider: "provider_c", sim: c, form: "at the provider's default mount" },
];

/** The file ids the simulator's live deployments mount. */
async function mountedFileIds(sim: RunningSim): Promise<string[]> {
  const dump = (await simState(sim)) as Record<string, unknown>;
  const deployments = (dump.deployments ?? []) as Array<Record<string, unknown>>;
  return deployments
    .filter((d) => !d.archived_at)
    .flatMap((d) => (d.resources ?? []) as Array<Record<string, unknown>>)
    .filter((r) => r.type === "file")
    .map((r) => String(r.file_id));
}

const dirs = removedAfterAll();

type Agents = ReturnType<typeof inProcessProject>;

/** The project in a new folder, driven in-process. */
async function project(provider: Provider, sim: RunningSim, yaml: string, files: Record<string, string>) {
  const dir = await writeSimProject(provider, sim, yaml, {
    dirs,
    prefix: `agents-depl-src-${provider}-`,
    files,
  });
  return { dir, agents: inProcessProject(dir, { AGENTS_STATE_KEY: "depl-sources" }) };
}

/**
 * Applies, then checks the simulator holds `files` uploads, all mounted by the deployment, and the
 * next plan is clean. Returns the uploads' ids.
 */
async function appliedClean(agents: Agents, sim: RunningSim, files: number): Promise<string[]> {
  const apply = await agents.apply();
  expect(apply.error).toBe("");
  expect(apply.code).toBe(0);
  const live = await liveFileIds(sim);
  expect(live).toHaveLength(files);
  expect((await mountedFileIds(sim)).sort()).toEqual([...live].sort());
  expect((await agents.plan()).code).toBe(0);
  return live;
}

/** Destroy leaves no uploaded file. */
async function destroyedClean(agents: Agents, sim: RunningSim): Promise<void> {
  expect((await agents.destroy()).code).toBe(0);
  expect(await liveFileIds(sim)).toEqual([]);
}

describe.each(ROWS)("$provider: a deployment's file source, $form, edited", ({ provider, sim, mount }) => {
  it("plans its new digest, uploads the new content, deletes the old upload, then plans clean", async () => {
    const { dir, agents } = await project(provider, sim, body(provider, mount), {
      "docs/brief.md": "Version one.\n",
    });
    const before = await appliedClean(agents, sim, 1);

    await fs.writeFile(join(dir, "docs", "brief.md"), "Version two.\n");
    const plan = await agents.plan();
    expect(plan.code).toBe(2);
    expect(plan.text).toContain(`${provider}.deployments["nightly"]`);
    expect(plan.text).toMatch(/~ source_digests\.docs\/brief\.md: "[0-9a-f]{64}" → "[0-9a-f]{64}"/);

    const after = await appliedClean(agents, sim, 1);
    expect(after[0]).not.toBe(before[0]);
    await destroyedClean(agents, sim);
  });
});

describe.each(ROWS.filter((r) => r.mount))(
  "$provider: a deployment's file source dropped",
  ({ provider, sim }) => {
    it("deletes the upload the deployment no longer mounts", async () => {
      const second = "      - type: file\n        source: docs/notes.md\n        mount_path: notes.md\n";
      const both = body(provider, "brief.md").replace("    initial_events:", `${second}    initial_events:`);
      const { dir, agents } = await project(provider, sim, both, {
        "docs/brief.md": "Brief.\n",
        "docs/notes.md": "Notes.\n",
      });
      await appliedClean(agents, sim, 2);

      const yaml = join(dir, "agents.yaml");
      await fs.writeFile(yaml, (await fs.readFile(yaml, "utf8")).replace(second, ""));
      await appliedClean(agents, sim, 1);
      await destroyedClean(agents, sim);
    });
  },
);
