import { beforeAll, describe, expect, it } from "vitest";
import {
  liveObjects,
  removedAfterAll,
  setFaults,
  simState,
  simulatorForFile,
  startProviderAInstantUploads,
} from "../e2e/project.js";
import { inProcessProject } from "./in-process.js";
import { writeSimProject } from "./sim-project.js";

const BODY = `environments:
  sandbox:
    provider: provider_a
    config:
      type: cloud
agents:
  analyst:
    provider: provider_a
    model: qwen-max
    instructions: Analyse.
deployments:
  weekly:
    provider: provider_a
    agent: analyst
    environment: sandbox
    resources:
      - type: file
        source: data/glossary.md
        mount_path: inputs/glossary.md
    initial_events:
      - type: user.message
        content: Weekly numbers, please.
`;

const a = simulatorForFile("provider_a", startProviderAInstantUploads);
let dir: string;
/** The CLI's steps in-process (in-process.ts), with the variables the CLI ran with. */
const agents = () => inProcessProject(dir, { AGENTS_STATE_KEY: "upload-key" });
const liveFiles = async () =>
  liveObjects(await simState(a)).filter((o) => o.type === "files" || o.type === "file");

const dirs = removedAfterAll();
beforeAll(async () => {
  dir = await writeSimProject("provider_a", a, BODY, {
    dirs,
    prefix: "agents-a-upload-",
    files: { "data/glossary.md": "# Glossary\n" },
  });
});

describe("provider_a deployment file uploads", () => {
  it("a failed deployment save leaves no uploaded file behind", async () => {
    await setFaults(a, {
      rules: [{ method: "POST", path: "/deployments$", action: { type: "status", status: 400 } }],
    });
    try {
      const apply = await agents().apply();
      expect(apply.code).toBe(1);
      expect(apply.text).toContain('provider_a.deployments["weekly"]: create FAILED');
    } finally {
      await setFaults(a, {});
    }
    expect(await liveFiles()).toEqual([]);
  });

  it("the next apply converges and destroy leaves nothing", async () => {
    expect((await agents().apply()).code).toBe(0);
    expect((await liveFiles()).length).toBe(1);
    expect((await agents().plan()).code).toBe(0);
    expect((await agents().destroy()).code).toBe(0);
    expect(await liveFiles()).toEqual([]);
  });
});
