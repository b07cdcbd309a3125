// The string form of an agent's `files` (spec: "inherited by provider_b Forward Templates, created
// through the Forward File API"), through the CLI's steps in-process on provider_b's simulator: a
// local file by path is uploaded and attached to the Template, an edit of its content plans and
// applies an update that replaces the upload, and destroy leaves no file behind. Each upload is
// journaled: one an interrupted run left and nothing uses is deleted by the next apply.
import { promises as fs } from "node:fs";
import { join } from "node:path";
import type { RunningSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removedAfterAll, simState, simulatorForFile } from "../e2e/project.js";
import { inProcessProject } from "./in-process.js";
import { KillSwitch, killedRun } from "./kill-switch.js";
import { forwardConcierge, writeSimProject } from "./sim-project.js";

const BODY = `defaults:
  identity: alice
identities:
  alice:
    external_id: user-1
${forwardConcierge("files:", "  - docs/guide.md")}`;

type Obj = Record<string, unknown>;
const b = simulatorForFile("provider_b");
let dir: string;
/** The CLI's steps in-process (in-process.ts), with the variables the CLI ran with. */
const agents = () => inProcessProject(dir, { AGENTS_STATE_KEY: "b-files" });
const dump = async () => (await simState(b)) as Record<string, Obj[]>;
const liveFiles = async () => ((await dump()).files ?? []).filter((f) => !f.deleted_at);

const dirs = removedAfterAll();
beforeAll(async () => {
  dir = await writeSimProject("provider_b", b, BODY, {
    dirs,
    prefix: "agents-b-files-",
    files: { "docs/guide.md": "# Guide\n\nVersion one.\n" },
  });
});

describe("a Forward Template's files by path", () => {
  it("validates, uploads the file, attaches it and plans clean", async () => {
    expect((await agents().validate()).code).toBe(0);
    const apply = await agents().apply();
    expect(apply.error).toBe("");
    expect(apply.code).toBe(0);
    const files = await liveFiles();
    expect(files.map((f) => f.filename)).toEqual(["guide.md"]);
    const template = (await dump()).templates!.find((t) => t.name === "concierge")!;
    expect(Object.keys(template.files as Obj)).toEqual([files[0]!.id]);
    expect((await agents().plan()).code).toBe(0);
  });

  it("an edited file plans an update of the agent and replaces the upload", async () => {
    const before = (await liveFiles())[0]!.id;
    await fs.writeFile(join(dir, "docs", "guide.md"), "# Guide\n\nVersion two.\n");
    const plan = await agents().plan();
    expect(plan.code).toBe(2);
    expect(plan.text).toMatch(/~ files\.docs\/guide\.md: "sha256:[0-9a-f]{64}" → "sha256:[0-9a-f]{64}"/);
    expect((await agents().apply()).code).toBe(0);
    const files = await liveFiles();
    expect(files).toHaveLength(1);
    expect(files[0]!.id).not.toBe(before);
    expect((await agents().plan()).code).toBe(0);
  });

  it("destroy leaves no uploaded file", async () => {
    expect((await agents().destroy()).code).toBe(0);
    expect(await liveFiles()).toEqual([]);
  });
});

describe("a Forward file an interrupted run uploaded, edited before the next apply", () => {
  let kill: KillSwitch;
  beforeAll(async () => {
    kill = await KillSwitch.start(b);
  });
  afterAll(() => kill.close());

  it("is deleted by the next apply, which uploads the new content: one file, none after destroy", async () => {
    const project = await writeSimProject("provider_b", { url: kill.url } as RunningSim, BODY, {
      dirs,
      prefix: "agents-b-files-killed-",
      files: { "docs/guide.md": "# Guide\n\nVersion one.\n" },
    });
    const env = { AGENTS_STATE_KEY: "b-files" };
    // Killed after the upload, before the Template create was sent: the upload is journaled.
    await killedRun(project, env, kill, "apply", {
      method: "POST",
      path: "/forward/templates$",
      served: false,
    });
    const left = (await liveFiles()).map((f) => f.id);
    expect(left).toHaveLength(1);
    await fs.writeFile(join(project, "docs", "guide.md"), "# Guide\n\nVersion two.\n");
    const agentsHere = inProcessProject(project, env);
    const apply = await agentsHere.apply();
    expect(apply.code, apply.text + apply.error).toBe(0);
    expect(apply.text).toContain(
      `deleted ${left[0]} (guide.md), uploaded by an interrupted run and not used`,
    );
    const files = await liveFiles();
    expect(files).toHaveLength(1);
    expect(files[0]!.id).not.toBe(left[0]);
    expect((await agentsHere.destroy()).code).toBe(0);
    expect(await liveFiles()).toEqual([]);
  });
});
