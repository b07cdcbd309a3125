import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnv } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { runCliHere } from "../e2e/cli-here.js";

const CLI = fileURLToPath(new URL("../../dist/agents.mjs", import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), "agents-cli-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The CLI's commands in this process (e2e/cli-here.ts), with only PATH and `env` in the environment. */
function run(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  return runCliHere(args, { cwd: options.cwd ?? tmp, env: options.env, cleanEnv: true });
}

/** The spawned, built CLI: for what only a process shows (AGENTS_DEBUG's stack trace). */
function spawnRun(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? tmp,
    env: { PATH: process.env.PATH ?? "", ...options.env },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function project(name: string, yaml: string): string {
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "agents.yaml"), yaml);
  return dir;
}

const INVALID = `version: "1"
providers:
  provider_c:
    api_key: \${KEY}
environments:
  dev:
    config:
      type: cloud
      setup_script: echo hi
agents:
  a:
    model: m
    instructions: Work.
    environment: dvv
`;

describe("agents validate", () => {
  it("prints compiler-style diagnostics with an excerpt, a caret and a hint, and exits 1", async () => {
    const dir = project("invalid", INVALID);
    const { code, stdout, stderr } = await run(["validate"], { cwd: dir, env: { KEY: "k" } });
    expect(stderr).toBe("");
    expect(code).toBe(1);
    expect(stdout).toContain(
      "agents.yaml:9:21 error AGENTS1101 environments.dev: provider_c does not run `setup_script`",
    );
    expect(stdout).toContain("  9 |       setup_script: echo hi\n    |                     ^\nhint: ");
    expect(stdout).toContain(
      'agents.yaml:14:18 error AGENTS1040 agents.a: environment "dvv" is not declared (did you mean "dev"?)',
    );
    expect(stdout.trimEnd().endsWith("2 errors, 0 warnings")).toBe(true);
  });

  it("prints one JSON document with --json", async () => {
    const dir = project("invalid-json", INVALID);
    const { code, stdout } = await run(["validate", "--json", "-f", "agents.yaml"], {
      cwd: dir,
      env: { KEY: "k" },
    });
    expect(code).toBe(1);
    const doc = JSON.parse(stdout);
    expect(doc).toMatchObject({ valid: false, errors: 2, warnings: 0 });
    expect(doc.file).toBe(join(dir, "agents.yaml"));
    expect(doc.diagnostics.map((d: { code: string }) => d.code)).toEqual(["AGENTS1101", "AGENTS1040"]);
    expect(doc.diagnostics[0]).toMatchObject({ line: 9, col: 21, severity: "error" });
  });

  it("exits 0 on a valid file and 0 with only warnings", async () => {
    const dir = project(
      "warn",
      'version: "1"\nproviders:\n  provider_b:\n    api_key: ${KEY}\nchannels:\n  g:\n    type: wechat\n    mode: pairing\n    agent: x\n',
    );
    const { code, stdout } = await run(["validate"], { cwd: dir, env: { KEY: "k" } });
    expect(code).toBe(0);
    expect(stdout).toContain("warning AGENTS1602");
    expect(stdout.trimEnd().endsWith("valid (0 errors, 1 warning)")).toBe(true);
  });

  it("fails cleanly on a missing file and on bad usage, without stack traces", async () => {
    const missing = await run(["validate", "-f", "nope.yaml"]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain("AGENTS1006");
    const usage = await run(["frobnicate"]);
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain("unknown command");
    expect(`${missing.stdout}${usage.stderr}`).not.toMatch(/\n\s+at .+:\d+:\d+/);
  });

  it("never prints a secret, even when the secret itself is the invalid value", async () => {
    const secret = "ws-super-secret-value-42";
    const dir = project(
      "secret",
      'version: "1"\nproviders:\n  provider_a:\n    api_key: ${KEY}\n    workspace_id: ${WS}\nagents:\n  a:\n    model: m\n    instructions: x\n    vault: ${WS}\n',
    );
    for (const args of [["validate"], ["validate", "--json"]]) {
      const { code, stdout, stderr } = await run(args, { cwd: dir, env: { KEY: "k", WS: secret } });
      expect(code).toBe(1);
      expect(stdout).toContain("AGENTS1035");
      expect(`${stdout}${stderr}`).not.toContain(secret);
    }
  });

  it("restricts to one provider with --provider", async () => {
    const dir = project(
      "multi",
      'version: "1"\nproviders:\n  provider_a: {api_key: k, workspace_id: llm-1}\n  provider_c: {api_key: k}\ndefaults: {provider: all}\nmemory_stores:\n  notes: {}\n',
    );
    expect((await run(["validate"], { cwd: dir })).code).toBe(1);
    expect((await run(["validate", "--provider", "provider_c"], { cwd: dir })).code).toBe(0);
  });
});

describe("agents init", () => {
  it.each(["provider_a", "provider_b", "provider_c", "provider_d"])(
    "writes a starter for %s that validates clean",
    async (provider) => {
      const dir = join(tmp, `init-${provider}`);
      const { code, stdout } = await run(["init", "--provider", provider, "--agent", "helper", "--dir", dir]);
      expect(code).toBe(0);
      expect(stdout).toContain("agents.yaml");
      const yaml = readFileSync(join(dir, "agents.yaml"), "utf8");
      expect(yaml).toContain("# yaml-language-server: $schema=./agents.schema.json");
      expect(yaml).toContain("  helper:");
      expect(existsSync(join(dir, "agents.schema.json"))).toBe(true);
      const env = parseEnv(readFileSync(join(dir, ".env.example"), "utf8")) as Record<string, string>;
      const check = await run(["validate"], { cwd: dir, env });
      expect(check.stdout).toContain("valid (0 errors, 0 warnings)");
      expect(check.code).toBe(0);
    },
  );

  it("appends to .gitignore without duplicating lines and refuses to overwrite", async () => {
    const dir = join(tmp, "init-gitignore");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, ".gitignore"), "node_modules/\n.env");
    writeFileSync(join(dir, ".env.example"), "OTHER=1\nPROVIDER_C_API_KEY=keep-me");
    expect((await run(["init"], { cwd: dir })).code).toBe(0);
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe(
      "node_modules/\n.env\nagents.state.json\nagents.state.json.*\n",
    );
    // an existing .env.example is kept; only variables it lacks would be appended
    expect(readFileSync(join(dir, ".env.example"), "utf8")).toBe("OTHER=1\nPROVIDER_C_API_KEY=keep-me");
    const again = await run(["init"], { cwd: dir });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists; refusing to overwrite/);
    rmSync(join(dir, "agents.yaml"));
    expect((await run(["init"], { cwd: dir })).code).toBe(0);
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe(
      "node_modules/\n.env\nagents.state.json\nagents.state.json.*\n",
    );
    // the default starter targets provider_c
    expect(readFileSync(join(dir, "agents.yaml"), "utf8")).toContain("provider_c:");
  });

  it("asks for the provider and agent on a terminal (driven through a pseudo-terminal by script(1))", () => {
    const dir = join(tmp, "init-tty");
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} init --dir ${JSON.stringify(dir)}`;
    const result = spawnSync("script", ["-qec", command, "/dev/null"], {
      input: "provider_d\nresearcher\n",
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "" },
      timeout: 20_000,
    });
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain(
      "provider (provider_a, provider_b, provider_c, provider_d) [provider_c]:",
    );
    expect(result.stdout).toContain("agent name [assistant]:");
    const yaml = readFileSync(join(dir, "agents.yaml"), "utf8");
    expect(yaml).toContain("  provider_d:");
    expect(yaml).toContain("  researcher:");
  });

  it("appends the starter's variables that an existing .env.example lacks", async () => {
    const dir = join(tmp, "init-env-example");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, ".env.example"), "OTHER=1\nPROVIDER_A_API_KEY=mine");
    expect((await run(["init", "--provider", "provider_a"], { cwd: dir })).code).toBe(0);
    expect(readFileSync(join(dir, ".env.example"), "utf8")).toBe(
      "OTHER=1\nPROVIDER_A_API_KEY=mine\nPROVIDER_A_WORKSPACE_ID=llm-replace-me\n",
    );
  });

  it("prints a stack trace only with AGENTS_DEBUG=1", async () => {
    const dir = join(tmp, "init-debug");
    expect((await run(["init", "--dir", dir])).code).toBe(0);
    const plain = await run(["init", "--dir", dir]);
    expect(plain.stderr).not.toMatch(/\n\s+at .+/);
    const debug = spawnRun(["init", "--dir", dir], { env: { AGENTS_DEBUG: "1" } });
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/refusing to overwrite[\s\S]*\n\s+at .+/);
  });

  it("rejects an unknown provider", async () => {
    const result = await run(["init", "--provider", "provider_z", "--dir", join(tmp, "init-bad")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('unknown provider "provider_z"');
  });
});

describe("agents schema", () => {
  it("prints a JSON Schema of agents.yaml", async () => {
    const { code, stdout } = await run(["schema"]);
    expect(code).toBe(0);
    const schema = JSON.parse(stdout);
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.required).toEqual(expect.arrayContaining(["version", "providers"]));
    expect(schema.properties.agents.additionalProperties.required).toEqual(["model", "instructions"]);
    expect(schema.properties.providers.additionalProperties).toBe(false);
  });

  it("--tests prints the JSON Schema of the test files of agents test", async () => {
    const { code, stdout } = await run(["schema", "--tests"]);
    expect(code).toBe(0);
    const schema = JSON.parse(stdout);
    expect(schema).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $id: "urn:agents:agents.test.yaml:schema:1",
      required: ["tests"],
    });
    expect(schema.properties.tests.items.required).toEqual(["name", "agent", "messages", "expect"]);
  });
});
