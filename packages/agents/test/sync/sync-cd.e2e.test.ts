// `agents sync` end to end through the CLI's own commands, in-process (e2e/cli-here.ts) on the provider_c and provider_d simulators:
// apply → change things remotely (and in a second project that must be ignored) → dry run →
// sync → plan shows nothing left to do. Then one case per fail-closed rule of roster
// sync (docs/wire/provider-c.md §6), each leaving agents.yaml byte-identical.
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere as runCli } from "../e2e/cli-here.js";
import { Console, expectNoneOf, fileHash, type Json, makeProject, SECRETS } from "./remote.js";

const PROJECT = "sync-e2e";
const OTHER = "other-team";
const REMOTE_SECRET = "remote-only-secret-5531";
const PLACEHOLDER = "VAULTS_TOOLS_C_CREDENTIALS_SEARCH_SECRET_VALUE";

let c: RunningSim;
let d: RunningSim;
let dir: string;
let otherDir: string;
let consoleC: Console;
let consoleD: Console;
const run = (...args: string[]) =>
  runCli(args, { cwd: dir, env: { AGENTS_STATE_KEY: "sync-key", AGENTS_PROJECT: PROJECT } });
const yamlPath = () => join(dir, "agents.yaml");
const readYaml = () => fs.readFile(yamlPath(), "utf8");

beforeAll(async () => {
  [c, d] = await Promise.all([
    startSim("provider_c", { quiet: true }),
    startSim("provider_d", { quiet: true }),
  ]);
  consoleC = new Console("provider_c", c);
  consoleD = new Console("provider_d", d);
  [dir, otherDir] = await Promise.all([makeProject({ c, d }), makeProject({ c, d })]);
});
afterAll(async () => {
  await Promise.all([c?.close(), d?.close()]);
  for (const folder of [dir, otherDir]) if (folder) await fs.rm(folder, { recursive: true, force: true });
});

const expectNoSecret = (text: string) => expectNoneOf([...Object.values(SECRETS), REMOTE_SECRET], text);

describe("agents sync: remote changes come back into agents.yaml", () => {
  let externalId: string;
  let reviewerId: string;

  it("applies the project, and a second project with the same logical names", async () => {
    const apply = await run("apply", "-y");
    expect(apply.stderr).toBe("");
    expect(apply.code).toBe(0);
    const other = await runCli(["apply", "-y"], {
      cwd: otherDir,
      env: { AGENTS_STATE_KEY: "other-key", AGENTS_PROJECT: OTHER },
    });
    expect(other.code).toBe(0);
    const clean = await run("sync", "--dry-run", "--detailed-exitcode");
    expect(clean.stderr).toBe("");
    expect(clean.stdout).toContain("No changes");
    expect(clean.code).toBe(0);
  });

  // Set-up for what follows: things change remotely through the providers' APIs.
  describe("after changes made through the providers' APIs", () => {
    beforeAll(async () => {
      const researcher = await consoleC.agentOf(PROJECT, "researcher-c");
      await consoleC.updateAgent(String(researcher.id), {
        system: "Research the question; cite primary sources.",
      });
      // The other project's agent of the same name changes too: sync must not pick it up.
      const theirs = await consoleC.agentOf(OTHER, "researcher-c");
      await consoleC.updateAgent(String(theirs.id), { system: "THEIR INSTRUCTIONS" });
      // An agent nobody declared joins the lead's roster: it comes back as {agent_id}.
      const external = await consoleC.post("/agents", { name: "helper", model: "claude-sonnet-4-5" });
      externalId = String(external.id);
      const lead = await consoleC.agentOf(PROJECT, "lead-c");
      await consoleC.updateAgent(String(lead.id), {
        multiagent: { type: "coordinator", agents: [researcher.id, externalId] },
      });
      // An agent created elsewhere but stamped as this project's joins the file under its name.
      const reviewer = await consoleC.post("/agents", {
        name: "reviewer-c",
        model: "claude-sonnet-4-5",
        system: "Review the draft.",
        metadata: { "agents.project": PROJECT, "agents.resource": 'provider_c.agents["reviewer-c"]' },
      });
      reviewerId = String(reviewer.id);
      const writer = await consoleD.agentOf(PROJECT, "writer-d");
      await consoleD.updateAgent(String(writer.id), { description: "Writes final copy" });
    });

    it("--dry-run prints the diff and writes nothing", async () => {
      const before = await fileHash(yamlPath());
      const dry = await run("sync", "--dry-run", "--detailed-exitcode");
      expect(dry.stderr).toBe("");
      expect(dry.code).toBe(2);
      expect(dry.stdout).toContain("--- a/agents.yaml");
      expect(dry.stdout).toContain("-    instructions: Research the question.");
      expect(dry.stdout).toContain("+    instructions: Research the question; cite primary sources.");
      expect(dry.stdout).toContain("-    description: Writes drafts");
      expect(dry.stdout).toContain("+    description: Writes final copy");
      expect(dry.stdout).toContain(`agent_id: ${externalId}`);
      expect(dry.stdout).toContain("nothing was written");
      expect(dry.stdout).not.toContain("THEIR INSTRUCTIONS");
      expectNoSecret(dry.stdout);
      expect(await fileHash(yamlPath())).toBe(before);
    });

    it("sync edits the file in place, keeping comments and untouched lines", async () => {
      const before = await readYaml();
      const sync = await run("sync");
      expect(sync.stderr).toBe("");
      expect(sync.code).toBe(0);
      expect(sync.stdout).toMatch(/Synced agents\.yaml: \d+ change\(s\) written/);
      const after = await readYaml();
      expectNoSecret(sync.stdout + after);
      expect(after).not.toContain("THEIR INSTRUCTIONS");
      // Comments, quoting and flow style of untouched nodes survive.
      for (const line of [
        "# A coordinator and its roster on two providers. Keys and URLs come from .env.",
        "        allowed_hosts: [api.github.com] # only what the researcher needs",
        "        access_token: ${GITHUB_TOKEN} # never written anywhere else",
        "  # The researcher digs; the lead delegates.",
        '    instructions: "Split the task and delegate."',
        "    instructions: Write the draft.",
      ])
        expect(after).toContain(line);
      expect(after).toContain("instructions: Research the question; cite primary sources.");
      expect(after).toContain("description: Writes final copy");
      expect(after).toContain(
        "  reviewer-c:\n    provider: provider_c\n    model: claude-sonnet-4-5\n    instructions: Review the draft.\n",
      );
      expect(sync.stdout).toContain(`agents import 'provider_c.agents["reviewer-c"]' ${reviewerId}`);
      // Roster: the project's member by logical name, the outsider as {agent_id}.
      expect(after).toContain(
        `      agents: [researcher-c, {agent_id: ${externalId}}] # members by logical name`,
      );
      const changed = before.split("\n").filter((line) => !after.includes(line));
      expect(changed).toEqual([
        "    instructions: Research the question.",
        "      agents: [researcher-c] # members by logical name",
        "    description: Writes drafts",
      ]);
    });

    it("after sync (and importing the new agent), plan shows no changes and a second sync none", async () => {
      const imported = await run("import", 'provider_c.agents["reviewer-c"]', reviewerId);
      expect(imported.code).toBe(0);
      const plan = await run("plan", "--detailed-exitcode");
      expect(plan.stdout).toContain("No changes.");
      expect(plan.code).toBe(0);
      const before = await fileHash(yamlPath());
      const again = await run("sync", "--detailed-exitcode");
      expect(again.stdout).toContain("No changes");
      expect(again.code).toBe(0);
      expect(await fileHash(yamlPath())).toBe(before);
    });

    it("a remote credential comes back with a ${VAR} placeholder for its secret, never the value", async () => {
      const vaults = (await consoleC.get("/vaults")).data as Json[];
      const vault = vaults.find((v) => (v.metadata as Json)["agents.project"] === PROJECT)!;
      await consoleC.post(`/vaults/${vault.id}/credentials`, {
        display_name: "search",
        auth: {
          type: "environment_variable",
          secret_name: "SEARCH_KEY",
          secret_value: REMOTE_SECRET,
          networking: { type: "limited", allowed_hosts: ["api.search.example"] },
        },
      });
      const sync = await run("sync");
      expect(sync.code).toBe(0);
      expect(sync.stdout).toContain(
        `Set these variables (e.g. in .env) before the next plan:\n  ${PLACEHOLDER}`,
      );
      const after = await readYaml();
      expectNoSecret(sync.stdout + sync.stderr + after);
      expect(after).toContain("        access_token: ${GITHUB_TOKEN} # never written anywhere else");
      expect(after).toContain(
        "      - name: search\n        type: environment_variable\n        secret_name: SEARCH_KEY",
      );
      expect(after).toContain(`        secret_value: \${${PLACEHOLDER}}`);
      expect(after).toContain("            - api.search.example");
      // The provider never shows the secret back, so the plan cannot know the remote value equals
      // the one set now: it lists that one secret (masked) for the next apply to write, nothing else.
      await fs.appendFile(join(dir, ".env"), `${PLACEHOLDER}=${REMOTE_SECRET}\n`);
      const plan = await run("plan");
      expect(plan.code).toBe(0);
      expect(plan.stdout).toContain("~ credentials[1].secret_value: (sensitive)");
      expect(plan.stdout).toContain("0 to create, 1 to update, 0 to replace, 0 to delete");
      expectNoSecret(plan.stdout);
    });

    it("--out writes the synced file elsewhere and leaves agents.yaml alone", async () => {
      const lead = await consoleD.agentOf(PROJECT, "lead-d");
      await consoleD.updateAgent(String(lead.id), { system: "Delegate, then review." });
      const before = await fileHash(yamlPath());
      const out = await run("sync", "--out", "synced.yaml");
      expect(out.code).toBe(0);
      expect(await fileHash(yamlPath())).toBe(before);
      expect(await fs.readFile(join(dir, "synced.yaml"), "utf8")).toContain(
        "instructions: Delegate, then review.",
      );
      await consoleD.updateAgent(String(lead.id), { system: "Delegate to the writer." });
    });
  });
});

describe("agents sync fails closed, leaving agents.yaml byte-identical", () => {
  async function expectRefused(...fragments: string[]) {
    const before = await fileHash(yamlPath());
    const result = await run("sync");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("sync refused, agents.yaml left unchanged");
    for (const fragment of fragments) expect(result.stderr).toContain(fragment);
    expect(result.stderr).not.toContain("    at ");
    expect(await fileHash(yamlPath())).toBe(before);
    const dry = await run("sync", "--dry-run");
    expect(dry.code).toBe(1);
    expect(await fileHash(yamlPath())).toBe(before);
  }

  it("two remote agents claim the same logical name", async () => {
    const copy = await consoleC.post("/agents", {
      name: "researcher-c",
      model: "claude-sonnet-4-5",
      metadata: { "agents.project": PROJECT, "agents.resource": 'provider_c.agents["researcher-c"]' },
    });
    await expectRefused('claim the same logical name provider_c.agents["researcher-c"]', String(copy.id));
    await consoleC.post(`/agents/${copy.id}/archive`, {});
  });

  it("a project-owned member lacks a logical name", async () => {
    const researcher = await consoleC.agentOf(PROJECT, "researcher-c");
    await consoleC.updateAgent(String(researcher.id), { metadata: { "agents.resource": null } });
    await expectRefused(`roster member ${researcher.id}`, "lacks a logical name");
    await consoleC.updateAgent(String(researcher.id), {
      metadata: { "agents.resource": 'provider_c.agents["researcher-c"]' },
    });
  });

  it("a project-owned member is missing from the account listing", async () => {
    const writer = await consoleD.agentOf(PROJECT, "writer-d");
    await consoleD.delete(`/agents/${writer.id}`);
    await expectRefused(`roster member ${writer.id} is missing from the provider_d agent listing`);
  });

  it("a typo in --provider is an error, not an empty sync", async () => {
    const before = await fileHash(yamlPath());
    const result = await run("sync", "--provider", "provider_x");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("--provider provider_x: unknown provider");
    expect(await fileHash(yamlPath())).toBe(before);
  });

  it("a project-owned member is archived", async () => {
    const researcher = await consoleC.agentOf(PROJECT, "researcher-c");
    await consoleC.post(`/agents/${researcher.id}/archive`, {});
    await expectRefused(`roster member ${researcher.id}`, "is archived");
  });
});
