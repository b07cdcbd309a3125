// Every project shipped under examples/ runs here as a user would run it against the simulators:
// validate → apply → plan says "No changes" (exit 0) → destroy → the simulators hold nothing live
// of the project. One case per example folder, found on disk, so a new example is covered the day
// it lands.
import { cpSync, promises as fs, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./cli.js";
import { liveObjects, simState } from "./project.js";

const EXAMPLES = fileURLToPath(new URL("../../../../examples/", import.meta.url));
const PROVIDERS = ["provider_a", "provider_b", "provider_c", "provider_d"] as const;

/** The value a `.env.example` placeholder gets against the simulators. */
const VALUES: Record<string, string> = {
  PROVIDER_A_API_KEY: "sim-provider-a-key",
  PROVIDER_A_WORKSPACE_ID: "llm-examples",
  PROVIDER_B_API_KEY: "sim-provider-b-key",
  PROVIDER_C_API_KEY: "sim-provider-c-key",
  PROVIDER_D_API_KEY: "sim-provider-d-key",
  FORGE_MCP_URL: "https://forge-mcp.example.test/mcp",
};

/** Objects an example references but does not manage: they exist before it, as for a user. */
const EXTERNALS: Record<string, (sims: Map<string, RunningSim>) => Promise<string>> = {
  async EXTERNAL_REVIEWER_AGENT_ID(sims) {
    const response = await fetch(`${sims.get("provider_c")!.url}/agents`, {
      method: "POST",
      headers: {
        "x-api-key": "sim-provider-c-key",
        "anthropic-version": "2023-06-01",
        "anthropic-beta": "managed-agents-2026-04-01",
        "content-type": "application/json",
      },
      body: JSON.stringify({ name: "external-reviewer", model: "claude-sonnet-4-5" }),
    });
    if (!response.ok) throw new Error(`creating the external agent failed: ${await response.text()}`);
    return ((await response.json()) as { id: string }).id;
  },
};

const sims = new Map<string, RunningSim>();
beforeAll(async () => {
  for (const name of PROVIDERS) sims.set(name, await startSim(name, { quiet: true }));
});
afterAll(async () => {
  await Promise.all([...sims.values()].map((s) => s.close()));
});

const examples = readdirSync(EXAMPLES, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

describe.each(examples)("examples/%s", (name) => {
  let dir: string;
  // Secrets the example's .env carries: none may reach the state file or the output.
  const secrets: string[] = [];
  const run = (...args: string[]) =>
    runCli(args, {
      cwd: dir,
      timeoutMs: 120_000,
      env: {
        AGENTS_STATE_KEY: `examples-${name}`,
        ...Object.fromEntries(PROVIDERS.map((p) => [`AGENTS_BASE_URL_${p.toUpperCase()}`, sims.get(p)!.url])),
      },
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), `agents-example-${name}-`));
    cpSync(join(EXAMPLES, name), dir, { recursive: true });
    const lines: string[] = [];
    for (const line of readFileSync(join(dir, ".env.example"), "utf8").split("\n")) {
      if (!/^[A-Z0-9_]+=/.test(line)) continue;
      const key = line.slice(0, line.indexOf("="));
      let value = VALUES[key];
      if (value === undefined && EXTERNALS[key]) value = await EXTERNALS[key](sims);
      if (value === undefined) {
        value = `${key.toLowerCase().replaceAll("_", "-")}-examples-secret`;
        secrets.push(value);
      }
      lines.push(`${key}=${value}`);
    }
    await fs.writeFile(join(dir, ".env"), `${lines.join("\n")}\n`);
  });
  afterAll(async () => {
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it("validates", async () => {
    const validate = await run("validate");
    expect(validate.stderr).toBe("");
    expect(validate.code).toBe(0);
  });

  it("applies, then plans no changes, and sync leaves the file as it is", async () => {
    const apply = await run("apply", "-y");
    expect(apply.stderr).toBe("");
    expect({ code: apply.code, out: apply.code === 0 ? "" : apply.stdout }).toEqual({ code: 0, out: "" });
    // The project is on a simulator now (the destroy check below is not vacuous).
    let owned = 0;
    for (const sim of sims.values())
      owned += liveObjects(await simState(sim)).filter(
        (o) => o.metadata?.["agents.project"] === basename(dir),
      ).length;
    expect(owned).toBeGreaterThan(0);
    const plan = await run("plan", "--detailed-exitcode");
    expect(plan.stdout).toContain("No changes.");
    expect(plan.code).toBe(0);
    // Sync right after apply leaves agents.yaml byte-identical.
    const yaml = await fs.readFile(join(dir, "agents.yaml"), "utf8");
    const sync = await run("sync");
    expect({ code: sync.code, stderr: sync.stderr }).toEqual({ code: 0, stderr: "" });
    expect(sync.stdout).toContain("No changes");
    expect(await fs.readFile(join(dir, "agents.yaml"), "utf8")).toBe(yaml);
    const state = await fs.readFile(join(dir, "agents.state.json"), "utf8");
    for (const secret of secrets) {
      expect(state).not.toContain(secret);
      expect(apply.stdout + plan.stdout).not.toContain(secret);
    }
  });

  it("destroys, leaving nothing of the project on any simulator", async () => {
    const destroy = await run("destroy", "-y");
    expect(destroy.stderr).toBe("");
    expect(destroy.code).toBe(0);
    for (const [provider, sim] of sims) {
      const left = liveObjects(await simState(sim)).filter(
        (o) => o.metadata?.["agents.project"] === basename(dir),
      );
      expect({ provider, left }).toEqual({ provider, left: [] });
    }
    const state = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));
    expect(state.resources).toEqual({});
  });
});
