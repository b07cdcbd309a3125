// The library API as a program other than the CLI uses it: everything from index.ts.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ALL_ADAPTERS, ConfigError, loadProject, type ProviderAdapter } from "../src/index.js";

function projectFile(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), "agents-library-"));
  const file = join(dir, "agents.yaml");
  writeFileSync(file, yaml);
  return file;
}

const FORWARD_AGENT = `version: "1"
providers:
  provider_b:
    api_key: b-key
environments:
  box:
    config: { type: cloud }
agents:
  helper:
    model: auto
    instructions: Help.
    environment: box
    delivery:
      provider_b:
        type: forward
`;

describe("loadProject, the library's way in", () => {
  it("merges derived facts through the adapters it is given, the same list the engine gets", async () => {
    const file = projectFile(FORWARD_AGENT);
    const providerB = ALL_ADAPTERS.find((a) => a.name === "provider_b")!;
    const own: ProviderAdapter = { ...providerB, derive: () => ({ marker: "from the caller's adapter" }) };
    const mine = await loadProject({ file, env: {}, adapters: [own] });
    expect(mine.desired.find((r) => r.kind === "agents")?.spec.derived).toEqual({
      marker: "from the caller's adapter",
    });
    // By default, the catalog's adapters: provider_b derives the agent's API domain.
    const byDefault = await loadProject({ file, env: {} });
    expect(byDefault.desired.find((r) => r.kind === "agents")?.spec.derived).toMatchObject({
      domain: "forward",
    });
  });

  it("refuses an invalid file with a ConfigError carrying the diagnostics", async () => {
    const file = projectFile('version: "1"\nproviders: {}\n');
    const error = await loadProject({ file, env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).diagnostics.map((d) => d.code)).toContain("AGENTS1030");
    expect((error as ConfigError).message).toMatch(/configuration error\(s\); fix them and run again/);
  });
});
