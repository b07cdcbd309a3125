// Issue 38, storm path 3: a provider_c deployment uploads its local `source` files, then creates
// the deployment. Files carry no metadata, so the uploads are journaled: whatever interrupts the
// run between the two calls (the provider refusing the create, its answer lost, the CLI killed,
// again and again), the run that converges uses one upload, and destroy leaves none. A destroy
// killed between the deployment's archive and its upload's delete is the kill matrix's provider_c
// destroy row (kill-matrix.e2e, on both state backends); a real SIGKILL of a destroy between an
// object's delete and its upload's is a-upload-crash.test.ts's.
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { inProcessProject } from "../convergence/in-process.js";
import { writeSimProject } from "../convergence/sim-project.js";
import { killApplyWhileHeld } from "./kill-held.js";
import { liveFileIds, removedAfterAll, requestLog, setFaults, simulatorForFile } from "./project.js";

const BODY = `environments:
  sandbox:
    provider: provider_c
    config:
      type: cloud
agents:
  writer:
    provider: provider_c
    model: claude-sonnet-4-5
    instructions: Write clearly.
deployments:
  nightly:
    provider: provider_c
    agent: writer
    environment: sandbox
    resources:
      - type: file
        source: data/glossary.md
        mount_path: /workspace/glossary.md
    initial_events:
      - type: user.message
        content: Go.
`;
const ADDRESS = 'provider_c.deployments["nightly"]';
const env = { AGENTS_STATE_KEY: "c-upload-key" };

const c = simulatorForFile("provider_c");
const dirs = removedAfterAll();
let dir: string;
const agents = () => inProcessProject(dir, env);

const liveFiles = () => liveFileIds(c);

async function recordedUploads(): Promise<string[]> {
  const state = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));
  return Object.values((state.resources[ADDRESS]?.extra?.uploads ?? {}) as Record<string, string>);
}

const HOLD_CREATE = {
  rules: [{ method: "POST", path: "/deployments$", repeat: true, action: { type: "hold" } }],
};

interface Row {
  name: string;
  /** Interrupts the deployment's create once (or more); leaves the faults cleared. */
  interrupt(): Promise<void>;
  /** Uploads the simulator may hold once the interrupted runs are over. */
  leftAtMost: number;
}

const ROWS: Row[] = [
  {
    name: "the provider refuses the create after the upload",
    async interrupt() {
      await setFaults(c, {
        rules: [{ method: "POST", path: "/deployments$", action: { type: "status", status: 500 } }],
      });
      const failed = await agents().apply();
      await setFaults(c, {});
      expect(failed.code, failed.text).toBe(1);
      expect(failed.text).toContain(`${ADDRESS}: create FAILED`);
    },
    leftAtMost: 0,
  },
  {
    name: "the create's answer is lost (the deployment exists)",
    async interrupt() {
      await setFaults(c, {
        rules: [{ method: "POST", path: "/deployments$", action: { type: "drop_response" } }],
      });
      const failed = await agents().apply();
      await setFaults(c, {});
      expect(failed.code, failed.text).toBe(1);
    },
    leftAtMost: 1,
  },
  {
    // Twice: the second killed run takes up the first's upload (the kill matrix kills this window
    // twice more in-process, on both state backends).
    name: "the CLI is killed between the upload and the create, twice in a row",
    async interrupt() {
      await setFaults(c, HOLD_CREATE);
      for (let kill = 1; kill <= 2; kill++) {
        await killApplyWhileHeld(c, dir, env);
        expect((await liveFiles()).length, `after kill ${kill}`).toBeLessThanOrEqual(1);
      }
      await setFaults(c, {});
    },
    leftAtMost: 1,
  },
];

beforeEach(async () => {
  await fetch(`${c.origin}/_sim/reset`, { method: "POST" });
  dir = await writeSimProject("provider_c", c, BODY, {
    dirs,
    prefix: "agents-c-upload-crash-",
    files: { "data/glossary.md": "# Glossary\n" },
  });
});

describe("provider_c deployment uploads interrupted", () => {
  it.each(ROWS)("$name: one upload used after convergence, none after destroy", async (row) => {
    await row.interrupt();
    expect((await liveFiles()).length).toBeLessThanOrEqual(row.leftAtMost);
    await fetch(`${c.origin}/_sim/log`, { method: "DELETE" });
    const again = await agents().apply();
    expect(again.code, again.text + again.error).toBe(0);
    // Whatever the interrupted runs uploaded is used or deleted: one upload, the one state records.
    const used = await recordedUploads();
    expect(used).toHaveLength(1);
    expect(await liveFiles()).toEqual(used);
    const uploads = (await requestLog(c)).filter((e) => e.method === "POST" && e.path.endsWith("/files"));
    expect(uploads.length).toBeLessThanOrEqual(row.leftAtMost === 0 ? 1 : 0);
    const plan = await agents().plan();
    expect(plan.code, plan.text + plan.error).toBe(0);
    expect(plan.text).toContain("No changes");
    const destroyed = await agents().destroy();
    expect(destroyed.code, destroyed.text + destroyed.error).toBe(0);
    expect(await liveFiles()).toEqual([]);
  });
});
