// `agents memory ...` through the library calls the CLI makes, against each simulator whose memory
// stores hold memories (provider_c with versions, provider_d without), over real sockets with a
// real applied state. Memories are data: after all of it the plan is still clean.
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  getMemory,
  listMemories,
  loadProject,
  memoryHistory,
  putMemory,
  redactMemoryVersion,
  removeMemory,
} from "../../src/index.js";
import { inProcessProject } from "../convergence/in-process.js";

const PROVIDERS = [
  {
    provider: "provider_b",
    key: "sim-provider-b-key",
    versions: true,
    at: "team/style.md",
    modified: "updated",
    url: "gateway",
  },
  {
    provider: "provider_c",
    key: "sim-provider-c-key",
    versions: true,
    at: "/team/style.md",
    modified: "modified",
    url: "base_url",
  },
  {
    provider: "provider_d",
    key: "sim-provider-d-key",
    versions: false,
    at: "/team/style.md",
    modified: "",
    url: "base_url",
  },
] as const;

describe.each(PROVIDERS)("$provider", ({ provider, key, versions, at, modified, url }) => {
  let sim: RunningSim;
  let dir: string;
  const env = { AGENTS_STATE_KEY: "memories", API_KEY: key };
  const engine = async () => ({
    project: await loadProject({ file: join(dir, "agents.yaml"), env: { ...process.env, ...env } }),
    env: { ...process.env, ...env },
  });

  beforeAll(async () => {
    sim = await startSim(provider, { quiet: true });
    dir = mkdtempSync(join(tmpdir(), "agents-memories-"));
    await fs.writeFile(
      join(dir, "agents.yaml"),
      `version: "1"\nproviders:\n  ${provider}:\n    api_key: \${API_KEY}\n    ${url}: ${sim.url}\nmemory_stores:\n  notes:\n    description: Notes\n  later:\n    description: Not applied\n`,
    );
  });
  afterAll(async () => {
    await sim?.close();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it("names agents apply for a store that is declared but not applied", async () => {
    await expect(listMemories(await engine(), "notes")).rejects.toThrow(
      'memory_stores["notes"] is declared but not applied yet; run agents apply first, then agents memory',
    );
  });

  it("put creates then updates, list and get read it, rm deletes it; the plan stays clean", async () => {
    const agents = inProcessProject(dir, env);
    expect((await agents.apply()).code).toBe(0);
    const o = await engine();
    expect(await listMemories(o, "notes")).toEqual([]);

    const created = await putMemory(o, "notes", "team/style.md", "Be brief.");
    expect({ created: created.created, path: created.path }).toEqual({
      created: true,
      path: at,
    });
    const updated = await putMemory(o, "notes", "/team/style.md", "Be briefer.");
    expect({ created: updated.created, id: updated.id }).toEqual({ created: false, id: created.id });
    expect((await listMemories(o, "notes")).map((m) => m.path)).toEqual([at]);
    expect((await getMemory(o, "notes", "team/style.md")).content).toBe("Be briefer.");

    expect((await agents.plan()).code).toBe(0);

    if (versions) {
      const history = await memoryHistory(o, "notes", "team/style.md");
      expect(history.map((v) => [v.operation, v.redacted])).toEqual([
        ["created", false],
        [modified, false],
      ]);
      expect((await redactMemoryVersion(o, "notes", history[0]!.id)).redacted).toBe(true);
      expect((await memoryHistory(o, "notes", "team/style.md"))[0]!.redacted).toBe(true);
    } else {
      await expect(memoryHistory(o, "notes", "team/style.md")).rejects.toThrow(
        `${provider} keeps no memory versions; agents memory works on provider_b, provider_c`,
      );
    }

    expect((await removeMemory(o, "notes", "team/style.md")).id).toBe(created.id);
    expect(await listMemories(o, "notes")).toEqual([]);
    if (versions)
      expect((await memoryHistory(o, "notes", "team/style.md")).map((v) => v.operation)).toEqual([
        "created",
        modified,
        "deleted",
      ]);
    await expect(getMemory(o, "notes", "team/style.md")).rejects.toThrow(
      `no memory ${at} in memory store notes`,
    );
    await expect(listMemories(o, "nope")).rejects.toThrow("no memory store nope in");
  });
});
