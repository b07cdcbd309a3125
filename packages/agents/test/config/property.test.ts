import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { loadConfigText } from "../../src/config/index.js";
import { PROVIDERS } from "../../src/providers/catalog.js";
import { FIXTURE_FILE, render } from "./helpers.js";

const RUNS = 200;
const name = fc.stringMatching(/^[a-z][a-z0-9._-]{0,11}$/);
const CRONS = ["0 9 * * 1-5", "*/5 * * * *", "30 2 1 * *", "0 0 * * 0"];
const ZONES = ["UTC", "Europe/Berlin", "Asia/Shanghai", "America/New_York"];

/** Respell a tool name the way users do: case and separators vary, the tool stays the same. */
function respell(tool: string, style: number): string {
  if (style === 1) return tool.toUpperCase();
  if (style === 2) return tool.replace(/_/g, "-");
  if (style === 3) return tool.replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());
  return tool;
}

const validConfig = fc
  .record({
    provider: fc.constantFrom("provider_a", "provider_b", "provider_c", "provider_d"),
    envNames: fc.uniqueArray(name, { minLength: 1, maxLength: 3 }),
    vaultNames: fc.uniqueArray(name, { maxLength: 3 }),
    storeNames: fc.uniqueArray(name, { maxLength: 3 }),
    agentNames: fc.uniqueArray(name, { minLength: 1, maxLength: 6 }),
    seed: fc.array(fc.nat(1000), { minLength: 40, maxLength: 40 }),
    eventCount: fc.integer({ min: 1, max: 50 }),
    // Inline instructions: not empty, no ${, and nothing that reads as a file path.
    text: fc
      .string({ maxLength: 40 })
      .filter(
        (s) =>
          s.trim().length > 0 &&
          !s.includes("$") &&
          !/^\S*(\.(md|markdown|txt)|^\.\.?\/\S*)$/i.test(s) &&
          !/^\.\.?\//.test(s),
      ),
  })
  .map(({ provider, envNames, vaultNames, storeNames, agentNames, seed, eventCount, text }) => {
    const caps = PROVIDERS[provider as keyof typeof PROVIDERS].capabilities;
    const pick = <T>(list: readonly T[], i: number) => list[seed[i % seed.length]! % list.length]!;
    const stores = caps.kinds.memory_stores.supported ? storeNames : [];
    const config: Record<string, any> = {
      version: "1",
      providers: {
        [provider]:
          provider === "provider_a" ? { api_key: "${KEY}", workspace_id: "llm-x" } : { api_key: "${KEY}" },
      },
      environments: Object.fromEntries(
        envNames.map((env, i) => [
          env,
          {
            config: {
              type: "cloud",
              packages: { [pick(caps.environments.packageManagers, i)]: ["pkg"] },
              ...(caps.environments.setupScript.supported ? { setup_script: "echo ready" } : {}),
            },
          },
        ]),
      ),
      vaults: Object.fromEntries(
        vaultNames.map((vault) => [
          vault,
          {
            credentials: [
              { name: "c", type: "environment_variable", secret_name: "S", secret_value: "${KEY}" },
            ],
          },
        ]),
      ),
      memory_stores: Object.fromEntries(
        stores.map((store) => [store, { entries: [{ key: "/a.md", content: text }] }]),
      ),
      agents: {} as Record<string, any>,
    };
    agentNames.forEach((agent, i) => {
      const tools = caps.agents.builtinTools.filter((_, t) => (seed[i + t]! & 1) === 0);
      const decl: Record<string, any> = {
        model: "m",
        instructions: text,
        environment: pick(envNames, i),
        tools: {
          builtin: tools,
          permissions: Object.fromEntries(
            tools.slice(0, 2).map((tool, t) => [respell(tool, seed[t]! % 4), "allow"]),
          ),
        },
      };
      if (vaultNames.length > 0) decl.vault = pick(vaultNames, i + 1);
      if (stores.length > 0) decl.memory_stores = [pick(stores, i + 2)];
      // The first agent coordinates the others (members are never coordinators themselves).
      if (i === 0 && agentNames.length > 1)
        decl.multiagent = { type: "coordinator", agents: agentNames.slice(1, 21) };
      config.agents[agent] = decl;
    });
    config.deployments = {
      run: {
        agent: agentNames[0],
        ...(caps.deployments.environmentRequired ? { environment: pick(envNames, 5) } : {}),
        initial_events: Array.from({ length: eventCount }, (_, i) =>
          i % 2 === 0 || caps.deployments.outcomeEvent === "dropped"
            ? { type: "user.message", content: text }
            : { type: "user.define_outcome", description: "the outcome", max_iterations: 1 + (i % 20) },
        ),
        ...(caps.deployments.schedule === "native"
          ? { schedule: { expression: pick(CRONS, 3), timezone: pick(ZONES, 4) } }
          : {}),
      },
    };
    return config;
  });

describe("property: generated valid configs validate clean", () => {
  it("has no diagnostics", () => {
    fc.assert(
      fc.property(validConfig, (config) => {
        const result = loadConfigText(stringify(config), FIXTURE_FILE, { env: { KEY: "k" } });
        expect(result.diagnostics, `${render(result)}\n---\n${stringify(config)}`).toEqual([]);
        expect(result.graph!.nodes.length).toBeGreaterThan(0);
      }),
      { numRuns: RUNS },
    );
  });
});

const PROVIDER_KEYS = Object.keys(PROVIDERS) as (keyof typeof PROVIDERS)[];

/** Several providers with `defaults.provider: all`: only what every one of them supports. */
const multiProviderConfig = fc
  .record({
    providers: fc.subarray(PROVIDER_KEYS, { minLength: 2 }),
    agentNames: fc.uniqueArray(name, { minLength: 1, maxLength: 5 }),
    withStore: fc.boolean(),
  })
  .map(({ providers, agentNames, withStore }) => {
    const caps = providers.map((p) => PROVIDERS[p].capabilities);
    const tools = caps[0]!.agents.builtinTools.filter((tool) =>
      caps.every((c) => c.agents.builtinTools.includes(tool)),
    );
    const storeHost = caps.find((c) => c.kinds.memory_stores.supported)?.name;
    const config: Record<string, any> = {
      version: "1",
      providers: Object.fromEntries(
        providers.map((p) => [
          p,
          p === "provider_a" ? { api_key: "${KEY}", workspace_id: "llm-x" } : { api_key: "${KEY}" },
        ]),
      ),
      defaults: { provider: "all" },
      environments: { shared: { config: { type: "cloud", packages: { pip: ["httpx"] } } } },
      vaults: {
        keys: {
          credentials: [
            { name: "k", type: "environment_variable", secret_name: "K", secret_value: "${KEY}" },
          ],
        },
      },
      agents: Object.fromEntries(
        agentNames.map((agent, i) => [
          agent,
          {
            model: Object.fromEntries(providers.map((p) => [p, `model-${p}`])),
            instructions: "Work.",
            environment: "shared",
            vault: "keys",
            tools: { builtin: tools.slice(0, 1 + (i % tools.length)) },
            ...(i === 0 && agentNames.length > 1 ? { multiagent: { agents: agentNames.slice(1) } } : {}),
          },
        ]),
      ),
      deployments: {
        run: {
          agent: agentNames[0],
          environment: "shared",
          vaults: ["keys"],
          initial_events: [{ type: "user.message", content: "go" }],
          ...(caps.every((c) => c.deployments.schedule === "native")
            ? { schedule: { expression: "0 9 * * *" } }
            : {}),
        },
      },
    };
    if (withStore && storeHost) {
      config.memory_stores = { notes: { provider: storeHost } };
      config.agents.Keeper = {
        provider: storeHost,
        model: "m",
        instructions: "Keep notes.",
        memory_stores: ["notes"],
      };
    }
    return { config, providers };
  });

describe("property: generated multi-provider configs validate clean and expand per provider", () => {
  it("has one node per declaration and provider", () => {
    fc.assert(
      fc.property(multiProviderConfig, ({ config, providers }) => {
        const result = loadConfigText(stringify(config), FIXTURE_FILE, { env: { KEY: "k" } });
        expect(result.diagnostics, `${render(result)}\n---\n${stringify(config)}`).toEqual([]);
        const agents = result.graph!.nodes.filter((n) => n.kind === "agents" && n.name !== "Keeper");
        expect(agents.length).toBe(
          Object.keys(config.agents).filter((a) => a !== "Keeper").length * providers.length,
        );
      }),
      { numRuns: RUNS },
    );
  });
});

function assertWellFormed(text: string): void {
  let result: ReturnType<typeof loadConfigText> | undefined;
  expect(() => {
    result = loadConfigText(text, FIXTURE_FILE, { env: { KEY: "k" } });
  }).not.toThrow();
  for (const d of result!.diagnostics) {
    expect(d.code).toMatch(/^AGENTS\d{4}$/);
    expect(d.line).toBeGreaterThanOrEqual(1);
    expect(d.col).toBeGreaterThanOrEqual(1);
    expect(typeof d.message).toBe("string");
  }
}

const EXAMPLES = fileURLToPath(new URL("../../../../examples/", import.meta.url));
const exampleTexts = readdirSync(EXAMPLES, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => readFileSync(join(EXAMPLES, d.name, "agents.yaml"), "utf8"));

describe("fuzz: the loader never throws", () => {
  it("on arbitrary text", () => {
    fc.assert(fc.property(fc.string({ maxLength: 400 }), assertWellFormed), { numRuns: RUNS });
  });

  it("on arbitrary YAML values", () => {
    const value = fc.jsonValue({ maxDepth: 4 });
    const shaped = fc.record({ version: fc.oneof(fc.constant("1"), value), providers: value, agents: value });
    fc.assert(
      fc.property(fc.oneof(value, shaped), (v) => assertWellFormed(stringify(v))),
      { numRuns: RUNS },
    );
  });

  it("on mutations of valid files", () => {
    const mutation = fc.record({
      file: fc.nat(exampleTexts.length - 1),
      at: fc.nat(),
      length: fc.nat(12),
      insert: fc.oneof(
        fc.constantFrom(":", "- ", "\n", "  ", "{", "[", "${", "#", "&a", "*a", "!!str "),
        fc.string({ maxLength: 6 }),
      ),
      kind: fc.constantFrom("delete", "insert", "replace", "swap-lines"),
    });
    fc.assert(
      fc.property(mutation, ({ file, at, length, insert, kind }) => {
        const text = exampleTexts[file]!;
        const pos = at % text.length;
        let mutated: string;
        if (kind === "delete") mutated = text.slice(0, pos) + text.slice(pos + length);
        else if (kind === "insert") mutated = text.slice(0, pos) + insert + text.slice(pos);
        else if (kind === "replace") mutated = text.slice(0, pos) + insert + text.slice(pos + length);
        else {
          const lines = text.split("\n");
          const i = pos % lines.length;
          const j = (pos + length) % lines.length;
          [lines[i], lines[j]] = [lines[j]!, lines[i]!];
          mutated = lines.join("\n");
        }
        assertWellFormed(mutated);
      }),
      { numRuns: RUNS },
    );
  });
});
