// Issue 10: a provider_a deployment whose save fails after its local file was uploaded must not
// leave the upload behind; the next apply converges and destroy leaves nothing.
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  liveObjects,
  setFaults,
  simState,
  simulatorForFile,
  startProviderAInstantUploads,
} from "../e2e/project.js";
import { inProcessProject } from "./in-process.js";

const CONFIG = `version: "1"
providers:
  provider_a:
    api_key: \${A_API_KEY}
    workspace_id: llm-e2e
    base_url: \${A_BASE_URL}
environments:
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

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agents-a-upload-"));
  await fs.mkdir(join(dir, "data"));
  await fs.writeFile(join(dir, "data", "glossary.md"), "# Glossary\n");
  await fs.writeFile(join(dir, "agents.yaml"), CONFIG);
  await fs.writeFile(join(dir, ".env"), `A_API_KEY=sim-provider-a-key\nA_BASE_URL=${a.url}\n`);
});
afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
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
