// Issue 23: provider_a uploads carry no metadata, so each one is journaled in state before its
// request. A lost `POST /files` answer, or a kill (SIGKILL of the real CLI) while an upload waits
// for its audit or a skill for its scan, must leave no copy behind: the next apply adopts what the
// interrupted run made or deletes it, and destroy leaves nothing. The kills go through the spawned
// CLI; the runs after them through the CLI's steps in-process (convergence/in-process.ts).
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { inProcessProject } from "../convergence/in-process.js";
import { writeSimProject } from "../convergence/sim-project.js";
import { killApplyWhen, killApplyWhileHeld, killDestroyBeforeFileDelete } from "./kill-held.js";
import {
  liveObjects,
  removedAfterAll,
  requestLog,
  setFaults,
  simState,
  simulatorForFile,
} from "./project.js";

const BODY = `files:
  glossary:
    provider: provider_a
    source: data/glossary.md
skills:
  charts:
    provider: provider_a
    source: skills/charts
`;

const SKILL = "---\nname: charts\ndescription: Draws charts\n---\nRead the CSV and draw it.\n";
const env = { AGENTS_STATE_KEY: "a-upload-key" };
const INSTANT = { file_audit_polls: 0, file_audit_ms: 0, skill_scan_polls: 0, skill_scan_ms: 0 };
/** Checks that never settle while a test holds the CLI in its wait. */
const ENDLESS = { file_audit_polls: 1e6, file_audit_ms: 1e9, skill_scan_polls: 1e6, skill_scan_ms: 1e9 };

const a = simulatorForFile("provider_a");
const dirs = removedAfterAll();
let dir: string;
const agents = () => inProcessProject(dir, env);

async function settings(values: Record<string, number>): Promise<void> {
  await fetch(`${a.origin}/_sim/seed`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ settings: values }),
  });
}

async function live() {
  const objects = liveObjects(await simState(a));
  return {
    files: objects.filter((o) => o.type === "file").map((o) => o.id),
    skills: objects.filter((o) => o.type === "skill").map((o) => o.id),
  };
}

async function stateIds(): Promise<Record<string, { id: string; extra?: Record<string, unknown> }>> {
  return JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8")).resources;
}

/**
 * Runs `agents apply -y` and SIGKILLs it once the simulator has logged `seen` requests matching
 * `at` (the upload sent, the wait begun): the moment a run dies with an upload unrecorded.
 */
async function killApplyWhenSeen(at: RegExp, seen: number): Promise<void> {
  await fetch(`${a.origin}/_sim/log`, { method: "DELETE" });
  await killApplyWhen(
    dir,
    env,
    async () => (await requestLog(a)).filter((e) => at.test(`${e.method} ${e.path}`)).length >= seen,
  );
}

beforeEach(async () => {
  await fetch(`${a.origin}/_sim/reset`, { method: "POST" });
  await settings(INSTANT);
  dir = await writeSimProject("provider_a", a, BODY, {
    dirs,
    prefix: "agents-a-upload-crash-",
    files: { "data/glossary.md": "# Glossary\n", "skills/charts/SKILL.md": SKILL },
  });
});

/** Converged: one file and one skill package, both the ones state records; plan clean; destroy empties. */
async function expectOneOfEachThenNothing(label: string): Promise<void> {
  const recorded = await stateIds();
  const now = await live();
  expect(now.skills, label).toEqual([recorded['provider_a.skills["charts"]']!.id]);
  const packages = recorded['provider_a.skills["charts"]']!.extra?.package_files as string[];
  expect(now.files.sort(), label).toEqual([recorded['provider_a.files["glossary"]']!.id, ...packages].sort());
  expect(packages, `${label}: ${JSON.stringify(recorded)}`).toHaveLength(1);
  const plan = await agents().plan();
  expect(plan.code, `${label}: ${plan.text}${plan.error}`).toBe(0);
  const destroyed = await agents().destroy();
  expect(destroyed.code, `${label}: ${destroyed.text}${destroyed.error}`).toBe(0);
  expect(await live(), label).toEqual({ files: [], skills: [] });
}

describe("provider_a uploads interrupted", () => {
  it("a lost POST /files answer: the next apply adopts the upload instead of sending a copy", async () => {
    // Both uploads (the declared file and the skill package) lose their answer.
    await setFaults(a, {
      rules: [{ method: "POST", path: "/files$", repeat: true, action: { type: "drop_response" } }],
    });
    const broken = await agents().apply();
    expect(broken.code).toBe(1);
    await setFaults(a, {});
    expect((await live()).files).toHaveLength(2);
    await fetch(`${a.origin}/_sim/log`, { method: "DELETE" });
    const again = await agents().apply();
    expect(again.code, again.text + again.error).toBe(0);
    // The declared file was adopted: nothing uploaded it again. No skill was made from the
    // package, but it holds the very bytes the skill needs: the new skill is made from it.
    const uploads = (await requestLog(a)).filter((e) => e.method === "POST" && e.path.endsWith("/files"));
    expect(uploads).toHaveLength(0);
    expect(again.text).toContain('provider_a.files["glossary"]: adopted');
    await expectOneOfEachThenNothing("lost answers");
  });

  it("kills while uploads wait for their audit: the next apply leaves one of each, destroy nothing", async () => {
    await settings(ENDLESS);
    // Twice: each killed run leaves its uploads, and they must not pile up.
    for (let kill = 1; kill <= 2; kill++) await killApplyWhenSeen(/^GET .*\/files\/file_/, 2);
    // The first kill leaves the file and the package; the second run adopts that file and takes
    // up that package (dying again in the audit wait): no second package.
    expect((await live()).files).toHaveLength(2);
    await settings(INSTANT);
    const again = await agents().apply();
    expect(again.code, again.text + again.error).toBe(0);
    await expectOneOfEachThenNothing("killed in the audit wait");
  });

  it("kills between the package upload and the skill create, twice in a row: one package, then none", async () => {
    // The package is uploaded and audited; POST /skills is held, and the CLI killed while it is.
    // The second killed run takes up the package the first left (a third would only repeat the
    // second; the kill matrix kills this window twice more in-process, on the file and on
    // PostgreSQL).
    await setFaults(a, {
      rules: [{ method: "POST", path: "/skills$", repeat: true, action: { type: "hold" } }],
    });
    const packages = async () =>
      ((await simState(a)) as { files: Array<{ id: string; filename: string }> }).files
        .filter((f) => f.filename.endsWith(".zip"))
        .map((f) => f.id);
    for (let kill = 1; kill <= 2; kill++) {
      await killApplyWhileHeld(a, dir, env);
      // Each run after the first uses the package the one before it uploaded.
      expect(await packages(), `after kill ${kill}`).toHaveLength(1);
    }
    await setFaults(a, {});
    const again = await agents().apply();
    expect(again.code, again.text + again.error).toBe(0);
    const used = (await stateIds())['provider_a.skills["charts"]']!.extra?.package_files;
    expect(await packages()).toEqual(used);
    await expectOneOfEachThenNothing("killed before the skill create");
  });

  it("a destroy killed before a package's delete: the next destroy deletes it", async () => {
    expect((await agents().apply()).code).toBe(0);
    await killDestroyBeforeFileDelete(a, dir, env);
    const destroyed = await agents().destroy();
    expect(destroyed.code, destroyed.text + destroyed.error).toBe(0);
    expect(await live()).toEqual({ files: [], skills: [] });
  });

  it("a kill while the skill waits for its scan: the next apply adopts the skill (no 409, no copy)", async () => {
    await settings({ ...INSTANT, skill_scan_polls: 1e6, skill_scan_ms: 1e9 });
    await killApplyWhenSeen(/^GET .*\/skills\/skill-[^/]+\/versions\//, 1);
    expect((await live()).skills).toHaveLength(1);
    await settings(INSTANT);
    const again = await agents().apply();
    expect(again.code, again.text + again.error).toBe(0);
    expect(again.text).toContain('provider_a.skills["charts"]: adopted');
    await expectOneOfEachThenNothing("killed in the scan wait");
  });
});
