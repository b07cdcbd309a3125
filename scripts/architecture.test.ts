// The rules of the house that the code keeps, guarded. Each rule is data (a layer list, a
// table of allowed writers) so that breaking one names the file and the import that broke it.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  foldersUnder,
  foldersWithSubfolders,
  importCycles,
  importsOutside,
  networkOffenders,
  opaqueOffenders,
  parseSource,
  readSources,
  type SourceFile,
  unitCycles,
  unitOf,
  unmirrored,
  unplaced,
  upward,
  withoutComments,
} from "./architecture.js";

const root = (pkg: string, dir: string) =>
  fileURLToPath(new URL(`../packages/${pkg}/${dir}/`, import.meta.url));

const agents = readSources(root("agents", "src"));
const forgeMcp = readSources(root("forge-mcp", "src"));
const sims = readSources(root("sims", "src"));
const simsTests = readSources(root("sims", "test"));

/**
 * agents, lowest first. Each row may import only from rows above it in this list (and its own
 * folder): the vocabulary, then the providers (contract, helpers, one definition each, the
 * catalog), then the configuration that validates against the catalog, then state, planning,
 * apply, the engine API, sync, the library entry points (the whole API, and the loader's part of
 * it), and the CLI on top.
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
  ["index.ts", "config-api.ts"],
  ["cli"],
];

/**
 * forge-mcp, lowest first: the variable readers, the variable table, the leaf modules (config.ts
 * among them), the MCP layer (the tool catalogue and the one user of the SDK's server side), the
 * /mcp lane, the forge client, the OAuth service and the tools, the server, the entry points.
 */
const FORGE_MCP_LAYERS = [
  ["config-readers.ts"],
  ["config-variables.ts"],
  ["body-limit.ts", "config.ts", "heap.ts", "logger.ts", "metrics.ts", "origin-guard.ts", "pkce.ts"],
  ["mcp"],
  ["mcp-lane.ts"],
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

/** What reaches the network when imported for its value (statically or by `import("…")`), besides `fetch(`. */
const NETWORK = ["node:http", "node:https", "node:net", "node:tls", "node:dgram", "undici", "redis", "pg"];

const AGENTS_NETWORK = {
  "providers/http.ts": { reaches: ["node:http", "node:https"], why: "the one client of the providers' APIs" },
  "state/postgres-store.ts": {
    reaches: ["pg"],
    why: "the PostgreSQL state backend, loaded by import() only when used",
  },
  "cli/playground/server.ts": {
    reaches: ["node:http"],
    why: "`agents playground`: a server on 127.0.0.1 only, token, Host and Origin checked",
  },
};

/** forge-mcp's ways out and in, one row each. */
const FORGE_MCP_NETWORK = {
  "server.ts": {
    reaches: ["node:http"],
    why: "`listen`: forge-mcp's own listening socket, serving the /mcp lane in front of the Express app",
  },
  "forge/http.ts": { reaches: ["undici"], why: "every call to the forge: REST, GraphQL, OAuth, token info" },
  "oauth/shared-state.ts": {
    reaches: ["redis"],
    why: "the state replicas share when REDIS_URL is set, loaded by import() only then",
  },
  "forge/local-oauth.ts": {
    reaches: ["node:http"],
    why: "the stdio login's loopback server that receives the forge's redirect, for one sign-in",
  },
  "oauth/client-metadata.ts": {
    reaches: ["node:https", "node:net"],
    why: "a client's metadata document (an https client_id): public addresses only, checked in the socket's own lookup",
  },
};

/** `import(…)` of a computed specifier, by package and file, with the reason it is safe. */
const OPAQUE_ALLOWED: Record<string, Record<string, string>> = {
  agents: {},
  "forge-mcp": {},
  sims: {
    "registry.ts":
      "loads a simulator folder by name; the names are SIM_NAMES and the folders sit a layer below",
  },
};

/**
 * Folders whose parts import each other around a loop, with why the loop stands. Every other
 * folder below src/ has parts that form layers.
 */
const UNIT_LOOPS_ALLOWED: Record<string, Record<string, string>> = { agents: {}, "forge-mcp": {}, sims: {} };

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
  ] as const)(
    "%s: no two files import each other, directly or around a loop (type-only imports included)",
    (_pkg, files) => {
      expect(importCycles(files)).toEqual([]);
    },
  );

  it.each([
    ["agents", agents],
    ["forge-mcp", forgeMcp],
    ["sims", sims],
  ] as const)(
    "%s: in every folder below src/, the subfolders and files form layers (no loop among them)",
    (pkg, files) => {
      const allowed = UNIT_LOOPS_ALLOWED[pkg] ?? {};
      const nested = foldersWithSubfolders(files).filter((folder) => folder !== "");
      const loops = nested
        .filter((folder) => !(folder in allowed))
        .flatMap((folder) => unitCycles(files, folder));
      expect(loops).toEqual([]);
      // An allowance outlives its loop only by mistake.
      for (const folder of Object.keys(allowed)) expect(unitCycles(files, folder), folder).not.toEqual([]);
    },
  );

  it.each([
    ["agents", agents],
    ["forge-mcp", forgeMcp],
    ["sims", sims],
  ] as const)(
    "%s: every import() names its module in a string the guard can read, or is allowed with a reason",
    (pkg, files) => {
      expect(opaqueOffenders(files, OPAQUE_ALLOWED[pkg] ?? {})).toEqual([]);
    },
  );

  // config-api.ts is the loader's part of the same API, so that `agents validate` loads no engine.
  const ENTRY_POINTS = ["index.ts", "config-api.ts"];
  it("agents: the CLI imports only the library entry points (index.ts, config-api.ts), as index.ts promises", () => {
    const offenders = agents
      .filter((f) => f.path.startsWith("cli/"))
      .flatMap((f) =>
        f.imports.filter((i) => !i.target.startsWith("cli/") && !ENTRY_POINTS.includes(i.target)),
      )
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
        ...f.packages.filter((p) => p.target !== "zod").map((p) => `${f.path} imports ${p.target}`),
      ]);
    expect(offenders).toEqual([]);
  });
});

describe("agents: a provider is one folder, reached only through the catalog", () => {
  const providerFolder = (path: string) => /^providers\/(provider-[a-z0-9]+)\//.exec(path)?.[1];

  // specs.ts is the catalog without the adapters (what the configuration reads), from each spec.ts.
  it("only providers/catalog.ts and specs.ts import a provider folder: its definition.ts, its spec.ts", () => {
    const offenders = agents
      .filter((f) => providerFolder(f.path) === undefined)
      .flatMap((f) =>
        f.imports
          .filter((i) => providerFolder(i.target) !== undefined)
          .filter(
            (i) =>
              !(f.path === "providers/catalog.ts" && i.target.endsWith("/definition.ts")) &&
              !(f.path === "providers/specs.ts" && i.target.endsWith("/spec.ts")),
          )
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

  it("every provider folder has a definition.ts and a spec.ts, listed by the catalog and specs.ts", () => {
    const folders = [...new Set(agents.map((f) => providerFolder(f.path)).filter((p) => p !== undefined))];
    const catalog = agents.find((f) => f.path === "providers/catalog.ts");
    const specs = agents.find((f) => f.path === "providers/specs.ts");
    expect(folders.length).toBe(4);
    for (const folder of folders) {
      expect(agents.some((f) => f.path === `providers/${folder}/definition.ts`)).toBe(true);
      expect(catalog?.imports.map((i) => i.target)).toContain(`providers/${folder}/definition.ts`);
      expect(specs?.imports.map((i) => i.target)).toContain(`providers/${folder}/spec.ts`);
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

  it("only providers/http.ts reaches the providers; the PostgreSQL state backend is the one other way out", () => {
    expect(networkOffenders(agents, NETWORK, AGENTS_NETWORK)).toEqual([]);
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

/**
 * The MCP SDK's server side: v1's `server/*` (its OAuth helpers under `server/auth/` aside) and v2's
 * server packages. forge-mcp's src/mcp/ is the one place that speaks it.
 */
const MCP_SERVER_SIDE = /^@modelcontextprotocol\/(sdk\/server\/(?!auth\/)|server($|\/|-))/;

describe("forge-mcp: the rules of the house that hold today", () => {
  it("only src/mcp/ imports the MCP SDK's server side (the OAuth helpers under server/auth/ aside)", () => {
    expect(importsOutside(forgeMcp, "mcp", MCP_SERVER_SIDE)).toEqual([]);
    // the layer is there and does import it
    expect(
      forgeMcp.some(
        (f) => f.path.startsWith("mcp/") && f.packages.some((p) => MCP_SERVER_SIDE.test(p.target)),
      ),
    ).toBe(true);
  });

  it("only the modules in FORGE_MCP_NETWORK reach the network, each through what its row names", () => {
    expect(networkOffenders(forgeMcp, NETWORK, FORGE_MCP_NETWORK)).toEqual([]);
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
    files.filter((f) => [...f.packages, ...f.imports].some((i) => pattern.test(i.target))).map((f) => f.path);

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

/** Each rule, shown a file that breaks it: a guard that reports nothing on these is blind. */
describe("the network tables name only modules that still reach the network", () => {
  it.each([
    ["agents", agents, AGENTS_NETWORK],
    ["forge-mcp", forgeMcp, FORGE_MCP_NETWORK],
  ] as const)("%s", (_pkg, files, table) => {
    for (const [path, row] of Object.entries(table) as Array<[string, { reaches: string[] }]>) {
      const used = (files.find((f) => f.path === path)?.packages ?? []).filter((p) => !p.typeOnly);
      expect(
        row.reaches.filter((r) => !used.some((p) => p.target === r)),
        path,
      ).toEqual([]);
    }
  });
});

describe("the guard sees what breaks its rules", () => {
  const file = (path: string, text: string) => parseSource(path, text);

  it("reads a dynamic import with a literal specifier as an import, and marks type positions", () => {
    const f = file(
      "a/b.ts",
      [
        'const { createClient } = await import("redis");',
        "const lazy = () => import(`./c.js`);",
        'type Pg = typeof import("pg");',
        'let s: import("../d.js").Stats;',
      ].join("\n"),
    );
    expect(f.packages).toEqual([
      { target: "redis", typeOnly: false, dynamic: true },
      { target: "pg", typeOnly: true, dynamic: true },
    ]);
    expect(f.imports).toEqual([
      { target: "a/c.ts", typeOnly: false, dynamic: true },
      { target: "d.ts", typeOnly: true, dynamic: true },
    ]);
    expect(f.opaque).toEqual([]);
  });

  it("reports an import() of a computed specifier unless the file is allowed", () => {
    const files = [file("loader.ts", "const m = await import(/* hint */ `./${name}/index.js`);\n")];
    expect(opaqueOffenders(files, {})).toEqual(["loader.ts: import(`./${name}/index.js`)"]);
    expect(opaqueOffenders(files, { "loader.ts": "names come from a fixed list" })).toEqual([]);
  });

  it("reports a module that reaches the network by a dynamic import, a listening server or fetch", () => {
    const files = [
      file("oauth/cache.ts", 'const { createClient } = await import("redis");\n'),
      file("forge/login.ts", 'import { createServer } from "node:http";\n'),
      file("tools/x.ts", 'await fetch("https://example.test");\n'),
      file("server.ts", 'import type { Server } from "node:http";\n'),
      file("forge/http.ts", 'import { request } from "undici";\nimport net from "node:net";\n'),
    ];
    expect(networkOffenders(files, NETWORK, { "forge/http.ts": { reaches: ["undici"], why: "" } })).toEqual([
      "oauth/cache.ts reaches redis",
      "forge/login.ts reaches node:http",
      "tools/x.ts reaches fetch",
      "forge/http.ts reaches node:net",
    ]);
  });

  it("reports an import of the MCP SDK's server side outside src/mcp/, type-only and dynamic ones included", () => {
    const files = [
      file("mcp/sdk-server.ts", 'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\n'),
      file("tools/x.ts", 'import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\n'),
      file("main.ts", 'const s = await import("@modelcontextprotocol/sdk/server/stdio.js");\n'),
      file("server.ts", 'import { McpServer } from "@modelcontextprotocol/server";\n'),
      file("http.ts", 'import { x } from "@modelcontextprotocol/server-express";\n'),
      file(
        "oauth/bearer.ts",
        'import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";\n',
      ),
      file("oauth/types.ts", 'import type { AuthInfo } from "@modelcontextprotocol/sdk/types.js";\n'),
      file("client.ts", 'import { Client } from "@modelcontextprotocol/client";\n'),
    ];
    expect(importsOutside(files, "mcp", MCP_SERVER_SIDE)).toEqual([
      "tools/x.ts imports @modelcontextprotocol/sdk/server/mcp.js",
      "main.ts imports @modelcontextprotocol/sdk/server/stdio.js",
      "server.ts imports @modelcontextprotocol/server",
      "http.ts imports @modelcontextprotocol/server-express",
    ]);
  });

  it("reports a loop through type-only imports", () => {
    const files = [
      file("a.ts", 'import type { B } from "./b.js";\n'),
      file("b.ts", 'import type { A } from "./a.js";\n'),
    ];
    expect(importCycles(files)).toEqual(["a.ts -> b.ts -> a.ts"]);
  });

  it("reports a loop between the parts of a nested folder, even when no two files form one", () => {
    const files = [
      file("forge/model/a.ts", 'import { x } from "../rest/b.js";\n'),
      file("forge/rest/b.ts", "export const x = 1;\n"),
      file("forge/rest/c.ts", 'import { a } from "../model/a.js";\n'),
    ];
    expect(importCycles(files)).toEqual([]);
    expect(foldersWithSubfolders(files)).toEqual(["", "forge"]);
    expect(unitCycles(files, "forge")).toEqual(["forge/: model -> rest -> model"]);
  });

  it("reports an upward import inside a nested folder against that folder's layers", () => {
    const files = [
      file("p/low/a.ts", 'import { b } from "../high/b.js";\n'),
      file("p/high/b.ts", "export const b = 1;\n"),
    ];
    expect(upward(files, [["low"], ["high"]], "p")).toEqual(["p/low/a.ts imports p/high/b.ts"]);
    expect(unplaced(files, [["low"]], "p")).toEqual(["high"]);
    expect(unitOf("p/low/a.ts", "p")).toBe("low");
  });
});

/**
 * agents' tests mirror its sources: each unit test sits in test/<the src folder of the module it
 * tests>/, named after that module when it tests one. Outside the mirror stand only the suites that
 * cut across the tree, each in a folder that says what it is, and the data they read.
 */
const AGENTS_TEST_CROSS_CUTTING = [
  "e2e", // the spawned CLI against the simulators (the e2e tier, vitest.config.ts)
  "convergence", // the CLI's steps in-process against the simulators: the matrices and examples
  "fixtures", // agents.yaml projects and files that tests of several folders read
];

/** The same rule for the other two packages, with their own cross-cutting folders. */
const TEST_CROSS_CUTTING: Record<string, string[]> = {
  agents: AGENTS_TEST_CROSS_CUTTING,
  "forge-mcp": [],
  sims: [
    "provider-c-sdk", // provider_c's simulator driven by the provider's official SDK (docs/sims.md)
    "support", // the wire client and the set-up the provider suites share
  ],
};

describe("each package's test/ mirrors its src/", () => {
  it.each(Object.entries(TEST_CROSS_CUTTING))(
    "%s: every folder under test/ is a folder under src/, a named cross-cutting folder or fixtures",
    (pkg, crossCutting) => {
      const testFolders = foldersUnder(root(pkg, "test"));
      expect(testFolders.length).toBeGreaterThan(2);
      expect(unmirrored(testFolders, foldersUnder(root(pkg, "src")), crossCutting, "fixtures")).toEqual([]);
    },
  );

  it("reports a test folder that no source folder matches", () => {
    const src = ["plan", "providers", "providers/common"];
    const test = ["plan", "engine", "providers/common", "providers/extra", "e2e", "e2e/x", "sync/fixtures/a"];
    expect(unmirrored(test, src, ["e2e"], "fixtures")).toEqual(["engine", "providers/extra"]);
  });
});
