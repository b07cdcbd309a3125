// `agents memory ...` through the library calls the CLI makes, against each simulator whose memory
// stores hold memories (provider_b and provider_c with versions, provider_d without), over real
// sockets with a real applied state. Memories are data: after all of it the plan is still clean.
// Then `memory import` of a folder (dry run, import, re-import; paced under a request limit on
// provider_c), and `destroy`, which deletes the declared store with every memory in it.
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  getMemory,
  importMemories,
  listMemories,
  loadProject,
  memoryHistory,
  putMemory,
  redactMemoryVersion,
  removeMemory,
} from "../../src/index.js";
import { inProcessProject } from "../convergence/in-process.js";
import { requestLog, setFaults, simState } from "../e2e/project.js";

const PROVIDERS = [
  {
    provider: "provider_b",
    key: "sim-provider-b-key",
    versions: true,
    at: "team/style.md",
    modified: "updated",
    url: "gateway",
    paced: false,
  },
  {
    provider: "provider_c",
    key: "sim-provider-c-key",
    versions: true,
    at: "/team/style.md",
    modified: "modified",
    url: "base_url",
    // provider_c's simulator sends request-limit headers: the import is paced by them.
    paced: true,
  },
  {
    provider: "provider_d",
    key: "sim-provider-d-key",
    versions: false,
    at: "/team/style.md",
    modified: "",
    url: "base_url",
    paced: false,
  },
] as const;

/** A memory path as the provider spells it: relative on provider_b, absolute elsewhere. */
const spelled = (provider: string, path: string) => (provider === "provider_b" ? path : `/${path}`);
const memoryWrites = async (sim: RunningSim) =>
  (await requestLog(sim)).filter((e) => e.method !== "GET" && e.path.includes("/memories"));

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

describe.each(PROVIDERS)("$provider: import and destroy", ({ provider, key, url, paced }) => {
  let sim: RunningSim;
  let dir: string;
  let folder: string;
  const env = { AGENTS_STATE_KEY: "memories", API_KEY: key };
  const engine = async () => ({
    project: await loadProject({ file: join(dir, "agents.yaml"), env: { ...process.env, ...env } }),
    env: { ...process.env, ...env },
  });
  const p = (path: string) => spelled(provider, path);

  beforeAll(async () => {
    sim = await startSim(provider, { quiet: true });
    dir = mkdtempSync(join(tmpdir(), "agents-memories-import-"));
    folder = join(dir, "memories");
    await fs.writeFile(
      join(dir, "agents.yaml"),
      `version: "1"\nproviders:\n  ${provider}:\n    api_key: \${API_KEY}\n    ${url}: ${sim.url}\nmemory_stores:\n  notes:\n    description: Notes\n    entries:\n      - key: seed.md\n        content: Seeded.\n`,
    );
    const files: Record<string, string> = {
      "team/style.md": "Be brief.",
      "team/tone.md": "Warm.",
      "notes/deep/b.md": "Deep note.",
      ".hidden": "not a memory",
      ".git/config": "not a memory either",
    };
    for (const [path, content] of Object.entries(files)) {
      await fs.mkdir(join(folder, path, ".."), { recursive: true });
      await fs.writeFile(join(folder, path), content);
    }
  });
  afterAll(async () => {
    await sim?.close();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it("a dry run writes nothing; import creates, updates, leaves the same content and other memories alone", async () => {
    const agents = inProcessProject(dir, env);
    expect((await agents.apply()).code).toBe(0);
    const o = await engine();
    // One memory with the folder's content, one with an older content, one the folder lacks.
    await putMemory(o, "notes", "team/style.md", "Be brief.");
    await putMemory(o, "notes", "team/tone.md", "Cold.");
    await putMemory(o, "notes", "agent/own.md", "Written by an agent.");
    await fetch(`${sim.origin}/_sim/log`, { method: "DELETE" });

    const expected = {
      store: { name: "notes", provider },
      created: [p("notes/deep/b.md")],
      updated: [p("team/tone.md")],
      unchanged: [p("team/style.md")],
      skipped: [
        { file: ".git", reason: "hidden (dotfile)" },
        { file: ".hidden", reason: "hidden (dotfile)" },
      ],
      failed: [],
    };
    const dry = await importMemories(o, "notes", folder, { dryRun: true });
    expect(dry).toMatchObject({ ...expected, dryRun: true });
    expect(await memoryWrites(sim)).toEqual([]);

    const done = await importMemories(o, "notes", folder);
    expect(done).toMatchObject({ ...expected, dryRun: false });
    expect((await memoryWrites(sim)).map((e) => e.method)).toEqual(["POST", "POST"]);
    expect((await listMemories(o, "notes")).map((m) => m.path)).toEqual(
      [p("agent/own.md"), p("notes/deep/b.md"), p("seed.md"), p("team/style.md"), p("team/tone.md")].sort(),
    );
    expect((await getMemory(o, "notes", "team/tone.md")).content).toBe("Warm.");
    expect((await getMemory(o, "notes", "agent/own.md")).content).toBe("Written by an agent.");

    // Again: everything is already there, nothing is written.
    await fetch(`${sim.origin}/_sim/log`, { method: "DELETE" });
    const again = await importMemories(o, "notes", folder);
    expect({ created: again.created, updated: again.updated, unchanged: again.unchanged.length }).toEqual({
      created: [],
      updated: [],
      unchanged: 3,
    });
    expect(await memoryWrites(sim)).toEqual([]);
  });

  it("a file that cannot be a memory is reported and the others are still imported", async () => {
    const bad = join(dir, "bad");
    await fs.mkdir(bad, { recursive: true });
    await fs.writeFile(join(bad, "binary.bin"), Buffer.from([0xff, 0xfe, 0x00, 0x80]));
    await fs.writeFile(join(bad, "fine.md"), "Fine.");
    const report = await importMemories(await engine(), "notes", bad);
    expect({ created: report.created, failed: report.failed }).toEqual({
      created: [p("fine.md")],
      failed: [{ file: "binary.bin", error: "not UTF-8 text (memories hold text)" }],
    });
    await expect(importMemories(await engine(), "notes", join(dir, "absent"))).rejects.toThrow(
      "is not a folder: agents memory import reads a folder",
    );
  });

  // Only where the simulator sends limit headers; elsewhere a 429 only pauses the lane (Retry-After).
  if (paced)
    it("imports through the provider's request limit, paced, with nothing failed", async () => {
      const many = join(dir, "many");
      await fs.mkdir(many, { recursive: true });
      for (let i = 0; i < 16; i++) await fs.writeFile(join(many, `m${i}.md`), `Memory ${i}.`);
      await fetch(`${sim.origin}/_sim/log`, { method: "DELETE" });
      await setFaults(sim, { rateLimit: { limit: 40, periodSeconds: 1, burst: 2 } });
      try {
        const report = await importMemories(await engine(), "notes", many, { concurrency: 8 });
        expect({ created: report.created.length, failed: report.failed }).toEqual({
          created: 16,
          failed: [],
        });
        // Only what left before the first answer showed the limit may be refused.
        expect((await requestLog(sim)).filter((e) => e.status === 429).length).toBeLessThanOrEqual(8);
      } finally {
        await setFaults(sim, { rateLimit: null });
      }
    });

  it("destroy deletes the declared store with every memory in it, the agents' own included", async () => {
    const before = (await simState(sim)) as Record<string, Array<Record<string, unknown>>>;
    const storeKey = Object.keys(before).find((k) => /memory_?stores/i.test(k))!;
    const memoryKey = Object.keys(before).find((k) => /^memories$/i.test(k))!;
    expect(before[memoryKey]!.length).toBeGreaterThan(3);

    const agents = inProcessProject(dir, env);
    const destroyed = await agents.destroy();
    expect({ code: destroyed.code, error: destroyed.error }).toEqual({ code: 0, error: "" });
    const after = (await simState(sim)) as Record<string, Array<Record<string, unknown>>>;
    expect(after[storeKey]).toEqual([]);
    expect(after[memoryKey]).toEqual([]);
    // No memory was deleted one by one: the store took them with it.
    expect(
      (await requestLog(sim)).filter((e) => e.method === "DELETE" && e.path.includes("/memories/")),
    ).toEqual([]);
    const state = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));
    expect(state.resources).toEqual({});
  });
});
