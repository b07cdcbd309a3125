// `agents sync` for provider_a environments and vaults through the CLI's own commands, in-process (e2e/cli-here.ts): one apply, one remote change
// per (provider, kind) row, then dry run → sync → plan, each asserting every row. The vault row holds the
// rule of docs/wire/provider-a.md §8 (U1) that explicit host lists and injection booleans (and the legacy
// `unrestricted` form) are preserved through sync.
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere as runCli } from "../e2e/cli-here.js";
import { simulatorForFile } from "../e2e/project.js";
import {
  applyThenCleanSync,
  Console,
  dryRunOfRows,
  expectNoneOf,
  expectRowsSynced,
  makeProject,
  SECRETS,
  type SyncRow,
  syncWrites,
} from "./remote.js";

const PROJECT = "sync-kinds-a";
const FIXTURE = new URL("./fixtures/kinds-a", import.meta.url).pathname;
const REMOTE_SECRET = "deploy-secret-remote-4410";
const PLACEHOLDER = "VAULTS_TOOLS_A_CREDENTIALS_DEPLOY_SECRET_VALUE";

const a = simulatorForFile("provider_a");
let dir: string;
let remote: Console;
const run = (...args: string[]) =>
  runCli(args, { cwd: dir, env: { AGENTS_STATE_KEY: "sync-kinds-a-key", AGENTS_PROJECT: PROJECT } });
const yamlPath = () => join(dir, "agents.yaml");

const ROWS: SyncRow[] = [
  {
    kind: "provider_a environments",
    async change() {
      const env = await remote.ownedOf("/environments", PROJECT, "sandbox-a");
      const config = env.config as Record<string, unknown>;
      await remote.post(`/environments/${env.id}`, {
        name: env.name,
        description: "Data and plotting tools",
        config: { ...config, packages: { pip: ["pandas", "matplotlib"] } },
        metadata: env.metadata,
      });
    },
    added: ["+    description: Data and plotting tools", "+        pip: [pandas, matplotlib]"],
    kept: ["# provider_a environments and vaults synced back. Keys and URLs come from .env."],
    synced: ["    description: Data and plotting tools # kept unless the remote changes it"],
  },
  {
    kind: "provider_a vaults",
    async change() {
      const vault = await remote.ownedOf("/vaults", PROJECT, "tools-a");
      await remote.post(`/vaults/${vault.id}/credentials`, {
        display_name: "deploy",
        auth: {
          type: "environment_variable",
          secret_name: "DEPLOY_KEY",
          secret_value: REMOTE_SECRET,
          networking: { type: "limited", allowed_hosts: ["deploy.example.com"] },
          injection_location: { header: false, body: false },
        },
      });
    },
    added: ["+      - name: deploy"],
    kept: [
      "      # Explicit policy: must survive sync exactly as written.",
      "        secret_value: ${GITHUB_TOKEN}",
      "          type: limited",
      "          allowed_hosts: [api.github.com, uploads.github.com]",
      "        injection_location: {header: false, body: true}",
      "        networking: {type: unrestricted}",
    ],
    synced: [
      "      - name: deploy\n        type: environment_variable\n        secret_name: DEPLOY_KEY\n",
      `        secret_value: \${${PLACEHOLDER}}`,
      "            - deploy.example.com",
      "          header: false\n          body: false",
    ],
  },
];

beforeAll(async () => {
  remote = new Console("provider_a", a);
  dir = await makeProject({ a }, FIXTURE);
});
afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

const expectNoSecret = (text: string) => expectNoneOf([...Object.values(SECRETS), REMOTE_SECRET], text);

describe("agents sync on provider_a: environments and vaults", () => {
  it("applies, and an unchanged account syncs to no changes", async () => {
    const clean = await applyThenCleanSync(run);
    expect(clean.stdout + clean.stderr).not.toContain("kept as declared");
  });

  it("remote changes of every row show in the dry run, and nothing is written", async () => {
    expectNoSecret(await dryRunOfRows(ROWS, run, yamlPath()));
  });

  it("sync writes every row, keeping comments and explicit policies as written", async () => {
    const { stdout, after } = await syncWrites(run, yamlPath());
    expect(stdout).toContain(PLACEHOLDER);
    expectNoSecret(stdout + after);
    expectRowsSynced(after, ROWS);
  });

  it("plan then shows only the secret sync could not read, and a second sync nothing", async () => {
    await fs.appendFile(join(dir, ".env"), `${PLACEHOLDER}=${REMOTE_SECRET}\n`);
    const plan = await run("plan", "--detailed-exitcode");
    expectNoSecret(plan.stdout);
    // provider_a replaces a vault whose credentials change, so the unread secret is a replacement.
    expect(plan.stdout).toContain("~ credentials[2].secret_value: (sensitive)");
    expect(plan.stdout).toContain("0 to create, 0 to update, 1 to replace, 0 to delete");
    expect(plan.stdout).not.toContain("environments");
    const again = await run("sync", "--dry-run", "--detailed-exitcode");
    expect(again.stdout).toContain("No changes");
    expect(again.code).toBe(0);
  });
});
