// `agents sync` on provider_b through the CLI's own commands, in-process (e2e/cli-here.ts): Managed agents, Forward Templates (agents with
// Forward delivery), environments and vaults. One apply, one remote change per (provider, kind)
// row through the provider's Managed and Forward APIs, then dry run → sync → plan, each checking
// every row; then Multi-agent rule 12 fails closed for an archived project-owned Template member.
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpClientFactory, type HttpClient } from "../../src/providers/http.js";
import { connectProviderB } from "../../src/providers/provider-b/client.js";
import { runCliHere as runCli } from "../e2e/cli-here.js";
import { simulatorForFile } from "../e2e/project.js";
import {
  applyThenCleanSync,
  dryRunOfRows,
  expectNoneOf,
  expectRowsSynced,
  fileHash,
  type Json,
  makeProject,
  type SyncRow,
  syncWrites,
} from "./remote.js";

const PROJECT = "sync-kinds-b";
const FIXTURE = new URL("./fixtures/kinds-b", import.meta.url).pathname;
const SECRETS = {
  B_API_KEY: "sim-provider-b-key",
  SEARCH_TOKEN: "search-token-b-6620",
  DESK_CLIENT_ID: "desk-client-b-1",
  DESK_CLIENT_SECRET: "desk-secret-b-8841",
};
const REMOTE_SECRET = "deploy-secret-b-3307";
const PLACEHOLDER = "VAULTS_KEYS_B_CREDENTIALS_DEPLOY_SECRET_VALUE";
const AGENT_MEMORY = "the user prefers tables";

const b = simulatorForFile("provider_b");
let dir: string;
let api: { managed: HttpClient; forward: HttpClient };
let externalId: string;
let reviewerId: string;
let porterId: string;
const run = (...args: string[]) =>
  runCli(args, { cwd: dir, env: { AGENTS_STATE_KEY: "sync-kinds-b-key", AGENTS_PROJECT: PROJECT } });
const yamlPath = () => join(dir, "agents.yaml");

async function call(domain: "managed" | "forward", method: string, path: string, json?: Json) {
  return (await api[domain].request<Json>({ method: method as "GET", path, ...(json ? { json } : {}) })).body;
}

/** The object of a collection the project created for a logical name (live ones only). */
async function owned(domain: "managed" | "forward", path: string, name: string): Promise<Json> {
  const page = await call(domain, "GET", `${path}?limit=100`);
  const hit = (page.data as Json[]).find((o) => {
    const m = o.metadata as Record<string, string>;
    return m["agents.project"] === PROJECT && m["agents.resource"]?.endsWith(`["${name}"]`);
  });
  if (!hit) throw new Error(`no ${path} ${name}`);
  return hit;
}

const ROWS: SyncRow[] = [
  {
    kind: "provider_b environments",
    async change() {
      const env = await owned("managed", "/environments", "lab-env");
      const config = env.config as Json;
      await call("managed", "POST", `/environments/${env.id}`, {
        description: "Lab sandbox with wheels",
        config: {
          ...config,
          networking: { type: "limited", allowed_hosts: ["pypi.org", "files.pythonhosted.org"] },
        },
      });
    },
    added: [
      "+    description: Lab sandbox with wheels",
      "+        allowed_hosts: [pypi.org, files.pythonhosted.org] # only the index",
    ],
    kept: ["  # Used by the Forward agents, so it lives on the Forward API.", "        pip: [httpx]"],
    synced: [
      "        type: limited\n        allowed_hosts: [pypi.org, files.pythonhosted.org] # only the index",
    ],
  },
  {
    kind: "provider_b vaults",
    async change() {
      const vault = await owned("managed", "/vaults", "keys-b");
      await call("managed", "POST", `/vaults/${vault.id}/credentials`, {
        display_name: "deploy",
        auth: {
          type: "environment_variable",
          secret_name: "DEPLOY_KEY",
          secret_value: REMOTE_SECRET,
          networking: { type: "limited", allowed_hosts: ["deploy.example.com"] },
        },
      });
    },
    added: ["+      - name: deploy"],
    kept: ["        secret_value: ${SEARCH_TOKEN} # never written anywhere else"],
    synced: [
      "      - name: deploy\n        type: environment_variable\n        secret_name: DEPLOY_KEY\n",
      `        secret_value: \${${PLACEHOLDER}}`,
      "            - deploy.example.com",
    ],
  },
  {
    kind: "provider_b identities",
    async change() {
      const page = await call("forward", "GET", "/identities?external_id=user-1");
      const alice = (page.data as Json[])[0]!;
      await call("forward", "POST", `/identities/${alice.id}`, { name: "Alice Chen" });
    },
    added: ["+    name: Alice Chen"],
    kept: ["    external_id: user-1"],
    synced: ["  alice:\n    external_id: user-1\n    name: Alice Chen\n"],
  },
  {
    kind: "provider_b channels",
    async change() {
      const page = await call("forward", "GET", "/channels?limit=100");
      const desk = (page.data as Json[]).find((ch) => ch.name === "desk")!;
      await call("forward", "POST", `/channels/${desk.id}`, { enabled: false });
    },
    added: ["+    enabled: false"],
    kept: ["      client_secret: ${DESK_CLIENT_SECRET} # a secret: never read back", "    agent: desk-f"],
    synced: ["      client_secret: ${DESK_CLIENT_SECRET} # a secret: never read back\n    enabled: false\n"],
  },
  {
    kind: "provider_b memory_stores",
    async change() {
      const store = await owned("managed", "/memory_stores", "notes-b");
      await call("managed", "POST", `/memory_stores/${store.id}`, { description: "Team notes, curated" });
      await call("managed", "POST", `/memory_stores/${store.id}/memories`, {
        path: "learned.md",
        content: AGENT_MEMORY,
      });
      const memories = await call("managed", "GET", `/memory_stores/${store.id}/memories?limit=100`);
      const seed = (memories.data as Json[]).find((m) => String(m.path).replace(/^\//, "") === "style.md")!;
      await call("managed", "POST", `/memory_stores/${store.id}/memories/${seed.id}`, {
        content: "Be brief and cite.",
      });
    },
    added: [
      "+    description: Team notes, curated",
      "+        content: Be brief and cite. # a declared seed",
    ],
    kept: ["        content: Be brief and cite. # a declared seed"],
    synced: ["    description: Team notes, curated\n    entries:\n"],
  },
  {
    kind: "provider_b agents (Managed)",
    async change() {
      const helper = await owned("managed", "/agents", "helper-b");
      const lead = await owned("managed", "/agents", "lead-b");
      const outside = await call("managed", "POST", "/agents", {
        name: "outside-b",
        model: "auto",
        system: "Hi.",
      });
      externalId = String(outside.id);
      // Created elsewhere but stamped as this project's: added to the file in declared shape.
      const reviewer = await call("managed", "POST", "/agents", {
        name: "reviewer-b",
        model: "auto",
        system: "Review the answer.",
        tools: [
          {
            type: "agent_toolset_20260401",
            configs: [
              { name: "Read", enabled: true, permission_policy: { type: "always_allow" } },
              { name: "WebFetch", enabled: true, permission_policy: { type: "always_ask" } },
            ],
          },
        ],
        metadata: { "agents.project": PROJECT, "agents.resource": 'provider_b.agents["reviewer-b"]' },
      });
      reviewerId = String(reviewer.id);
      await call("managed", "PUT", `/agents/${helper.id}`, {
        ...pick(helper, ["name", "model", "tools", "metadata"]),
        system: "Look things up; cite sources.",
        version: helper.version,
      });
      await call("managed", "PUT", `/agents/${lead.id}`, {
        ...pick(lead, ["name", "model", "system", "tools", "metadata"]),
        multiagent: {
          type: "coordinator",
          agents: [
            { type: "agent", id: helper.id },
            { type: "agent", id: externalId },
          ],
        },
        version: lead.version,
      });
    },
    added: ["+    instructions: Look things up; cite sources."],
    kept: ["      builtin: [bash, web_fetch]", "        bash: ask", "  lead-b:"],
    synced: ["      agents: [helper-b, {agent_id: "],
  },
  {
    kind: "provider_b agents (Forward Template)",
    async change() {
      const desk = await owned("forward", "/templates", "desk-f");
      await call("forward", "POST", `/templates/${desk.id}`, {
        system: "Answer at the desk, politely.",
        environment_variables: { REGION: "eu" },
      });
      // A Template stamped as this project's: added with its environment by logical name.
      const template = await call("forward", "POST", "/templates", {
        name: "porter-f",
        model: "auto",
        system: "Carry the requests.",
        environment_id: desk.environment_id,
        metadata: { "agents.project": PROJECT, "agents.resource": 'provider_b.agents["porter-f"]' },
      });
      porterId = String(template.id);
    },
    added: ["+    instructions: Answer at the desk, politely.", "+      REGION: eu"],
    kept: ["    delivery:\n      provider_b:\n        type: forward", "      agents: [clerk-f]"],
    synced: ["    instructions: Answer at the desk, politely.\n    environment: desk-env\n"],
  },
];

function pick(o: Json, keys: string[]): Json {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined && o[k] !== null).map((k) => [k, o[k]]));
}

beforeAll(async () => {
  dir = await makeProject({}, FIXTURE);
  await fs.appendFile(
    join(dir, ".env"),
    `${Object.entries({ ...SECRETS, B_GATEWAY: b.url })
      .map(([k, v]) => `${k}=${v}`)
      .join("\n")}\n`,
  );
  api = connectProviderB(
    { api_key: SECRETS.B_API_KEY },
    createHttpClientFactory({ policy: { maxRetries: 0 } }),
    b.url,
  );
});
afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

const expectNoSecret = (text: string) => expectNoneOf([...Object.values(SECRETS), REMOTE_SECRET], text);

describe("agents sync on provider_b", () => {
  it("applies, and an unchanged account syncs to no changes", async () => {
    expect((await applyThenCleanSync(run)).stderr).toBe("");
  });

  it("remote changes of every row show in the dry run, and nothing is written", async () => {
    expectNoSecret(await dryRunOfRows(ROWS, run, yamlPath()));
  });

  it("sync writes every row, keeping comments and untouched lines", async () => {
    const { stdout, after } = await syncWrites(run, yamlPath());
    expect(stdout).toContain(PLACEHOLDER);
    expectNoSecret(stdout + after);
    expect(after).not.toContain(AGENT_MEMORY);
    expect(after).toContain(
      "  reviewer-b:\n    provider: provider_b\n    model: auto\n    instructions: Review the answer.\n" +
        "    tools:\n      builtin:\n        - read\n        - web_fetch\n      permissions:\n        web_fetch: ask\n",
    );
    expect(stdout).toContain(`agents import 'provider_b.agents["reviewer-b"]' ${reviewerId}`);
    expect(after).toContain(
      "  porter-f:\n    provider: provider_b\n    model: auto\n    instructions: Carry the requests.\n" +
        "    delivery:\n      provider_b:\n        type: forward\n    environment: desk-env\n",
    );
    expectRowsSynced(after, ROWS);
    expect(after).toContain(`      agents: [helper-b, {agent_id: ${externalId}}] # by logical name\n`);
  });

  it("plan then shows only the secret sync could not read, and a second sync nothing", async () => {
    await fs.appendFile(join(dir, ".env"), `${PLACEHOLDER}=${REMOTE_SECRET}\n`);
    expect((await run("import", 'provider_b.agents["reviewer-b"]', reviewerId)).code).toBe(0);
    expect((await run("import", 'provider_b.agents["porter-f"]', porterId)).code).toBe(0);
    const plan = await run("plan");
    expectNoSecret(plan.stdout);
    expect(plan.stdout).toContain("secret_value: (sensitive)");
    expect(plan.stdout).not.toMatch(/(agents|environments)\[/);
    const again = await run("sync", "--dry-run", "--detailed-exitcode");
    expect(again.stdout).toContain("No changes");
    expect(again.code).toBe(0);
  });

  it("refuses when a project-owned Template member is archived, leaving the file as it was", async () => {
    const clerk = await owned("forward", "/templates", "clerk-f");
    await call("forward", "POST", `/templates/${clerk.id}/archive`, {});
    const before = await fileHash(yamlPath());
    const sync = await run("sync");
    expect(sync.code).toBe(1);
    expect(sync.stderr).toContain(
      `roster member ${clerk.id} belongs to project "${PROJECT}" but is archived`,
    );
    expect(sync.stderr).not.toContain("    at ");
    expect(await fileHash(yamlPath())).toBe(before);
  });
});
