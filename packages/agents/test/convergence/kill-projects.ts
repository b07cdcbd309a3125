// One project per provider holding every kind it manages, for the kill matrix
// (kill-matrix.e2e.test.ts). `round` 2 is the same project with changes that force replacements
// (vault credentials, file contents, a deployment's agent or an identity's external id, a skill's
// name) and new upload contents (skill packages, a deployment's source), so the replace phase
// cuts through create-before-destroy and upload paths.
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Provider } from "./rows.js";

export interface KillProject {
  /** agents.yaml for round 1 and round 2. */
  yaml(round: 1 | 2): string;
  /** Local files for a round, by path relative to agents.yaml. */
  files(round: 1 | 2): Record<string, string>;
  /** The addresses round 2 must plan as replacements. */
  replaced: string[];
  /** The children the remote must hold once converged: credentials and memory entries. */
  credentials: number;
  memories: number;
}

const skill = (name: string, round: number) =>
  `---\nname: ${name}\ndescription: A probe skill\n---\n\nCheck the thing, round ${round}.\n`;
const glossary = (round: number) => `# Glossary\n\nSLA: service level agreement (round ${round}).\n`;
const message = "    initial_events:\n      - type: user.message\n        content: Go.\n";

const header = (provider: Provider) =>
  `version: "1"\nproviders:\n  ${provider}:\n    api_key: \${API_KEY}\n` +
  (provider === "provider_a" ? "    workspace_id: llm-kill\n" : "") +
  (provider === "provider_b" ? "    gateway: ${URL}\n" : "    base_url: ${URL}\n");

const envVar = (round: number) =>
  `      - name: one\n        type: environment_variable\n        secret_name: ONE_${round}\n        secret_value: \${SECRET}\n`;

export const KILL_PROJECTS: Record<Provider, KillProject> = {
  provider_a: {
    yaml: (round) =>
      `${header("provider_a")}environments:\n  e:\n    config:\n      type: cloud\n` +
      `vaults:\n  v:\n    credentials:\n${envVar(round)}` +
      "skills:\n  probe:\n    source: skills/probe\n" +
      "files:\n  glossary:\n    source: data/glossary.md\n" +
      "agents:\n" +
      "  solo:\n    model: qwen-plus\n    instructions: Be brief.\n    skills: [probe]\n    vault: v\n" +
      "    files:\n      - file: glossary\n        mount_path: reference/glossary.md\n" +
      "  other:\n    model: qwen-plus\n    instructions: Be thorough.\n" +
      "  lead:\n    model: qwen-plus\n    instructions: Split the work.\n" +
      "    multiagent:\n      type: coordinator\n      agents: [solo, other]\n" +
      `deployments:\n  weekly:\n    agent: ${round === 1 ? "solo" : "other"}\n    environment: e\n${message}`,
    files: (round) => ({
      "skills/probe/SKILL.md": skill("probe", round),
      "data/glossary.md": glossary(round),
    }),
    replaced: ['provider_a.vaults["v"]', 'provider_a.files["glossary"]', 'provider_a.deployments["weekly"]'],
    credentials: 1,
    memories: 0,
  },
  provider_b: {
    yaml: (round) =>
      `${header("provider_b")}defaults:\n  identity: alice\n` +
      `identities:\n  alice:\n    external_id: user-${round}\n    name: Alice\n` +
      "environments:\n  m-env:\n    config:\n      type: cloud\n  f-env:\n    config:\n      type: cloud\n" +
      `vaults:\n  keys:\n    credentials:\n${envVar(round)}` +
      "skills:\n  charts:\n    source: skills/charts\n" +
      "memory_stores:\n  notes:\n    entries:\n      - key: a.md\n        content: first\n" +
      "agents:\n" +
      "  writer:\n    model: auto\n    instructions: Write clearly.\n    environment: m-env\n" +
      "    vault: keys\n    skills: [charts]\n    memory_stores: [notes]\n" +
      "  concierge:\n    model: auto\n    instructions: Answer support questions.\n    environment: f-env\n" +
      "    files:\n      - docs/guide.md\n    delivery:\n      provider_b:\n        type: forward\n" +
      `deployments:\n  nightly:\n    agent: writer\n    environment: m-env\n${message}` +
      "channels:\n  lobby:\n    type: wechat\n    mode: pairing\n",
    files: (round) => ({
      "skills/charts/SKILL.md": skill("charts", round),
      "docs/guide.md": glossary(round),
    }),
    replaced: ['provider_b.vaults["keys"]', 'provider_b.identities["alice"]'],
    credentials: 1,
    memories: 1,
  },
  provider_c: {
    yaml: () =>
      `${header("provider_c")}environments:\n  e:\n    config:\n      type: cloud\n` +
      "vaults:\n  v:\n    display_name: Keys\n    credentials:\n" +
      "      - name: issues\n        type: static_bearer\n        mcp_server_url: https://issues.example.com/mcp\n" +
      "        access_token: ${SECRET}\n" +
      "memory_stores:\n  notes:\n    description: Notes\n    entries:\n      - key: /facts/sky.md\n        content: Blue.\n" +
      "skills:\n  probe:\n    source: skills/probe\n" +
      "agents:\n  writer:\n    model: claude-sonnet-4-5\n    instructions: Write clearly.\n" +
      "    skills: [probe]\n    vault: v\n    memory_stores: [notes]\n" +
      "deployments:\n  nightly:\n    agent: writer\n    environment: e\n" +
      "    resources:\n      - type: file\n        source: data/glossary.md\n        mount_path: /workspace/glossary.md\n" +
      message,
    files: (round) => ({
      "skills/probe/SKILL.md": skill(round === 1 ? "probe" : "probe-two", round),
      "data/glossary.md": glossary(round),
    }),
    replaced: ['provider_c.skills["probe"]'],
    credentials: 1,
    memories: 1,
  },
  provider_d: {
    yaml: (round) =>
      `${header("provider_d")}environments:\n  e:\n    config:\n      type: cloud\n` +
      `vaults:\n  v:\n    credentials:\n${envVar(round)}` +
      "memory_stores:\n  notes:\n    description: Notes\n    entries:\n      - key: /facts/sky.md\n        content: Blue.\n" +
      "skills:\n  probe:\n    source: skills/probe\n" +
      "files:\n  glossary:\n    source: data/glossary.md\n" +
      "agents:\n  writer:\n    model: doubao-seed-1-6\n    instructions: Write clearly.\n    environment: e\n" +
      "    skills: [probe]\n    vault: v\n    memory_stores: [notes]\n" +
      "    files:\n      - file: glossary\n        mount_path: reference/glossary.md\n" +
      `deployments:\n  nightly:\n    agent: writer\n    environment: e\n${message}`,
    files: (round) => ({ "skills/probe/SKILL.md": skill("probe", 1), "data/glossary.md": glossary(round) }),
    replaced: ['provider_d.vaults["v"]', 'provider_d.files["glossary"]'],
    credentials: 1,
    memories: 1,
  },
};

/** Writes round `round` of `provider`'s project into `dir` (a new temporary folder when absent). */
export async function writeKillProject(provider: Provider, round: 1 | 2, dir?: string): Promise<string> {
  const target = dir ?? mkdtempSync(join(tmpdir(), `agents-kill-${provider}-`));
  const project = KILL_PROJECTS[provider];
  for (const [path, content] of Object.entries({
    ...project.files(round),
    "agents.yaml": project.yaml(round),
  })) {
    await fs.mkdir(dirname(join(target, path)), { recursive: true });
    await fs.writeFile(join(target, path), content);
  }
  return target;
}
