// The rules of the house that the code keeps, guarded. Each rule is data (a layer list, a
// table of allowed writers) so that breaking one names the file and the import that broke it.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importCycles, readSources, type SourceFile, withoutComments } from "./architecture.js";

const root = (pkg: string, dir: string) =>
  fileURLToPath(new URL(`../packages/${pkg}/${dir}/`, import.meta.url));

const agents = readSources(root("agents", "src"));
const forgeMcp = readSources(root("forge-mcp", "src"));
const sims = readSources(root("sims", "src"));
const simsTests = readSources(root("sims", "test"));

/** A file's unit: its top folder under src/, or the file itself at the root of src/. */
const unitOf = (path: string) => (path.includes("/") ? path.slice(0, path.indexOf("/")) : path);

/** Imports that point from a unit to a higher one (or to a unit the table does not place). */
function upward(files: SourceFile[], layers: string[][]): string[] {
  const rank = new Map(layers.flatMap((units, i) => units.map((u) => [u, i] as const)));
  return files.flatMap((f) =>
    f.imports
      .filter((i) => {
        const from = rank.get(unitOf(f.path));
        const to = rank.get(unitOf(i.target));
        return unitOf(i.target) !== unitOf(f.path) && (from === undefined || to === undefined || to >= from);
      })
      .map((i) => `${f.path} imports ${i.target}`),
  );
}

const unplaced = (files: SourceFile[], layers: string[][]) => {
  const placed = new Set(layers.flat());
  return [...new Set(files.map((f) => unitOf(f.path)))].filter((u) => !placed.has(u));
};

/**
 * agents, lowest first. Each row may import only from rows above it in this list (and its own
 * folder): the vocabulary, then the providers (contract, helpers, one definition each, the
 * catalog), then the configuration that validates against the catalog, then state, planning,
 * apply, the engine API, sync, the library entry point, and the CLI on top.
 */
const AGENTS_LAYERS = [
  ["model"],
  ["providers"],
  ["config"],
  ["state"],
  ["plan"],
  ["apply"],
  ["engine"],
  ["sync"],
  ["index.ts"],
  ["cli"],
];

/** forge-mcp, lowest first: leaf modules, the forge client, the OAuth service and the tools, the server, the entry points. */
const FORGE_MCP_LAYERS = [
  ["config.ts", "logger.ts", "origin-guard.ts", "pkce.ts"],
  ["forge"],
  ["oauth", "tools"],
  ["server.ts"],
  ["index.ts", "main.ts"],
];

/** sims, lowest first: the harness, the helpers two simulators share, the dialect two share, the simulators, the entry points. */
const SIMS_LAYERS = [
  ["core", "kit"],
  ["managed"],
  ["provider-a", "provider-b", "provider-c", "provider-d", "forge"],
  ["registry.ts"],
  ["index.ts"],
  ["cli.ts"],
];

const PROVIDER_NAME_BRANCH =
  /(===|!==|==|!=|case)\s*["'`]provider_[a-z0-9]+["'`]|["'`]provider_[a-z0-9]+["'`]\s*(===|!==|==|!=)/;
const CORE = ["model", "config", "state", "plan", "apply", "engine", "sync"];
const FETCH_CALL = /(^|[^\w.])fetch\s*\(/m;
const TERMINAL_WRITE = /process\.(stdout|stderr)\.write|console\.(log|error|warn|info|debug)\s*\(/;

describe("the folder graph of each package has no cycle and no upward arrow", () => {
  it.each([
    ["agents", agents, AGENTS_LAYERS],
    ["forge-mcp", forgeMcp, FORGE_MCP_LAYERS],
    ["sims", sims, SIMS_LAYERS],
  ] as const)("%s: every folder is placed in a layer", (_pkg, files, layers) => {
    expect(files.length).toBeGreaterThan(20);
    expect(unplaced(files, layers as unknown as string[][])).toEqual([]);
  });

  it.each([
    ["agents", agents, AGENTS_LAYERS],
    ["forge-mcp", forgeMcp, FORGE_MCP_LAYERS],
    ["sims", sims, SIMS_LAYERS],
  ] as const)("%s: no import points up (type-only imports included)", (_pkg, files, layers) => {
    expect(upward(files, layers as unknown as string[][])).toEqual([]);
  });

  it.each([
    ["agents", agents],
    ["forge-mcp", forgeMcp],
    ["sims", sims],
  ] as const)("%s: no two files import each other, directly or around a loop", (_pkg, files) => {
    expect(importCycles(files)).toEqual([]);
  });

  it("agents: the CLI imports only the library entry point (index.ts), as index.ts promises", () => {
    const offenders = agents
      .filter((f) => f.path.startsWith("cli/"))
      .flatMap((f) => f.imports.filter((i) => !i.target.startsWith("cli/") && i.target !== "index.ts"))
      .map((i) => i.target);
    expect(offenders).toEqual([]);
  });

  it("agents: model/ imports nothing but itself and zod", () => {
    const offenders = agents
      .filter((f) => f.path.startsWith("model/"))
      .flatMap((f) => [
        ...f.imports
          .filter((i) => !i.target.startsWith("model/"))
          .map((i) => `${f.path} imports ${i.target}`),
        ...f.packages.filter((p) => p !== "zod").map((p) => `${f.path} imports ${p}`),
      ]);
    expect(offenders).toEqual([]);
  });
});

describe("agents: a provider is one folder, reached only through the catalog", () => {
  const providerFolder = (path: string) => /^providers\/(provider-[a-z0-9]+)\//.exec(path)?.[1];

  it("only providers/catalog.ts imports a provider folder, and only its definition.ts", () => {
    const offenders = agents
      .filter((f) => providerFolder(f.path) === undefined)
      .flatMap((f) =>
        f.imports
          .filter((i) => providerFolder(i.target) !== undefined)
          .filter((i) => f.path !== "providers/catalog.ts" || !i.target.endsWith("/definition.ts"))
          .map((i) => `${f.path} imports ${i.target}`),
      );
    expect(offenders).toEqual([]);
  });

  it("no provider folder imports another one; shared code lives in common/ or managed-dialect/", () => {
    const offenders = agents.flatMap((f) => {
      const own = providerFolder(f.path);
      return own === undefined
        ? []
        : f.imports
            .filter((i) => providerFolder(i.target) !== undefined && providerFolder(i.target) !== own)
            .map((i) => `${f.path} imports ${i.target}`);
    });
    expect(offenders).toEqual([]);
  });

  it("every provider folder has a definition.ts and the catalog lists it", () => {
    const folders = [...new Set(agents.map((f) => providerFolder(f.path)).filter((p) => p !== undefined))];
    const catalog = agents.find((f) => f.path === "providers/catalog.ts");
    expect(folders.length).toBe(4);
    for (const folder of folders) {
      expect(agents.some((f) => f.path === `providers/${folder}/definition.ts`)).toBe(true);
      expect(catalog?.imports.map((i) => i.target)).toContain(`providers/${folder}/definition.ts`);
    }
  });
});

describe("agents: the rules of the house that hold today", () => {
  it("no folder of the core branches on a provider name", () => {
    const offenders = agents
      .filter((f) => CORE.includes(unitOf(f.path)))
      .filter((f) => PROVIDER_NAME_BRANCH.test(f.text))
      .map((f) => f.path);
    expect(offenders).toEqual([]);
  });

  it("only providers/http.ts reaches the providers (fetch, node:http, node:https, node:net, undici)", () => {
    const network = ["node:http", "node:https", "node:net", "undici"];
    const offenders = agents
      .filter((f) => f.path !== "providers/http.ts")
      .filter((f) => f.packages.some((p) => network.includes(p)) || FETCH_CALL.test(withoutComments(f.text)))
      .map((f) => f.path);
    expect(offenders).toEqual([]);
  });

  it("only state/ and cli/ write files (sync writes through state/write.ts, the one atomic writer)", () => {
    const writes =
      /\b(writeFile|writeFileSync|appendFile|appendFileSync|rename|renameSync|createWriteStream|openSync)\s*\(|\bfs\.open\s*\(/;
    const offenders = agents
      .filter((f) => !f.path.startsWith("state/") && !f.path.startsWith("cli/"))
      .filter((f) => writes.test(withoutComments(f.text)))
      .map((f) => f.path);
    expect(offenders).toEqual([]);
  });

  it("only cli/ writes to the terminal", () => {
    const offenders = agents
      .filter((f) => !f.path.startsWith("cli/") && TERMINAL_WRITE.test(withoutComments(f.text)))
      .map((f) => f.path);
    expect(offenders).toEqual([]);
  });
});

describe("forge-mcp: the rules of the house that hold today", () => {
  it("only forge/http.ts reaches the network (undici or fetch)", () => {
    const offenders = forgeMcp
      .filter((f) => f.path !== "forge/http.ts")
      .filter((f) => f.packages.includes("undici") || FETCH_CALL.test(withoutComments(f.text)))
      .map((f) => f.path);
    expect(offenders).toEqual([]);
  });

  it("only the entry points and the stdio login prompt write to the terminal; the rest logs through pino", () => {
    const offenders = forgeMcp
      .filter((f) => !["main.ts", "forge/local-oauth.ts"].includes(f.path))
      .filter((f) => TERMINAL_WRITE.test(withoutComments(f.text)))
      .map((f) => f.path);
    expect(offenders).toEqual([]);
  });
});

/**
 * A simulator is a second, independent reading of the wire: if it shared the adapters' code, a wire
 * mistake would be mirrored and every test would still pass. The official SDK is an oracle for tests
 * only (a devDependency), never part of a simulator.
 */
describe("sims stay independent of the code they are a second reading for", () => {
  const reaches = (files: SourceFile[], pattern: RegExp) =>
    files
      .filter((f) => [...f.packages, ...f.imports.map((i) => i.target)].some((s) => pattern.test(s)))
      .map((f) => f.path);

  it.each([
    ["agents", /^@agents\/agents|(^|\/)agents\/src\//],
    ["forge-mcp", /^@agents\/forge-mcp|forge-mcp\//],
    ["the provider SDK", /^@anthropic-ai\//],
  ])("src/ imports nothing from %s", (_name, pattern) => {
    expect(sims.length).toBeGreaterThan(20);
    expect(reaches(sims, pattern)).toEqual([]);
  });

  it.each([
    ["agents", /^@agents\/agents|(^|\/)agents\/src\//],
    ["forge-mcp", /^@agents\/forge-mcp|forge-mcp\/src/],
  ])("test/ imports nothing from %s", (_name, pattern) => {
    expect(simsTests.length).toBeGreaterThan(5);
    expect(reaches(simsTests, pattern)).toEqual([]);
  });
});
