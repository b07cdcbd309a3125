import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnv } from "node:util";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.js";
import { KINDS } from "../../src/model/kinds.js";
import { cfg, load, render, TEST_ENV } from "./helpers.js";

const KIND_DIR = fileURLToPath(new URL("../fixtures/kinds/", import.meta.url));
const EXAMPLES = fileURLToPath(new URL("../../../../examples/", import.meta.url));

describe("a fixture per resource kind validates clean and expands", () => {
  it.each(KINDS.map((kind) => [kind]))("%s", async (kind) => {
    const result = await loadConfig(join(KIND_DIR, `${kind}.yaml`), { env: TEST_ENV });
    expect(result.diagnostics, render(result)).toEqual([]);
    expect(result.config?.[kind]).toBeDefined();
    const nodes = result.graph!.nodes.filter((node) => node.kind === kind);
    expect(nodes.length).toBe(Object.keys(result.config![kind]!).length);
  });

  it("resolves instructions files to their text and sources to absolute paths", async () => {
    const result = await loadConfig(join(KIND_DIR, "agents.yaml"), { env: TEST_ENV });
    const reviewer = result.config!.agents!.reviewer!;
    expect(reviewer.instructions).toContain("Review the change and list risks first.");
    expect(result.config!.skills!.s!.source).toBe(
      fileURLToPath(new URL("../fixtures/files/skills/review", import.meta.url)),
    );
    // camelCase toolkit aliases are folded into the snake_case fields
    expect(reviewer.tools!.mcp![0]).toMatchObject({
      mcp_server_name: "docs",
      default_config: { enabled: true },
    });
    expect(reviewer.resources![0]!.authorization_token).toBe(TEST_ENV.TOKEN);
  });

  it("coerces numeric secrets to strings, and warns that they are inline", () => {
    const result = load(
      cfg(
        ["provider_c"],
        "vaults:\n  v:\n    credentials:\n      - {name: n, type: static_bearer, mcp_server_url: u, access_token: 12345}",
      ),
    );
    const credential = result.config!.vaults!.v!.credentials![0]!;
    expect(credential.type === "static_bearer" && credential.access_token).toBe("12345");
    expect(result.diagnostics.map((d) => d.code)).toEqual(["AGENTS1007"]);
  });

  it("records external ids on graph nodes", async () => {
    const envs = await loadConfig(join(KIND_DIR, "environments.yaml"), { env: TEST_ENV });
    expect(envs.graph!.byAddress.get('provider_c.environments["existing"]')!.external).toEqual({
      field: "environment_id",
      id: "env_0123",
    });
    const ids = await loadConfig(join(KIND_DIR, "identities.yaml"), { env: TEST_ENV });
    expect(ids.graph!.byAddress.get('provider_b.identities["external"]')!.external?.field).toBe(
      "identity_id",
    );
    expect(ids.graph!.byAddress.get('provider_b.identities["managed"]')!.external).toBeUndefined();
  });
});

describe("every example validates clean with its .env.example", () => {
  const dirs = readdirSync(EXAMPLES, { withFileTypes: true }).filter((d) => d.isDirectory());
  it("has the examples the docs promise", () => {
    expect(dirs.map((d) => d.name).sort()).toEqual(
      [
        "forge-mcp",
        "multi-provider",
        "provider-a",
        "provider-b",
        "provider-b-forward",
        "provider-c",
        "provider-d",
      ].sort(),
    );
  });
  it.each(dirs.map((d) => [d.name]))("%s", async (name) => {
    const dir = join(EXAMPLES, name);
    const env = parseEnv(readFileSync(join(dir, ".env.example"), "utf8")) as Record<string, string>;
    const result = await loadConfig(join(dir, "agents.yaml"), { env });
    expect(result.diagnostics, render(result)).toEqual([]);
    expect(result.config).toBeDefined();
    // every secret in the example comes from a variable, so its value is known for redaction
    expect(result.secretValues.length).toBeGreaterThan(0);
  });
});
