// The docs name files of the repository (`packages/agents/src/state/backend.ts`, `src/oauth/bearer.ts`,
// `test/e2e/crash.test.ts`, `config/line-yaml.ts`, `heap.ts`) so a reader can open them. When a file
// moves and the doc stays, the doc sends the reader nowhere. This reads README.md and every page under
// docs/ once, in-process, and checks that each path it names exists; docs-citations.test.ts checks the
// links between the pages and their headings.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const SKIP = new Set(["node_modules", "dist", "coverage"]);

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name) || name.startsWith(".git")) continue;
    const path = join(dir, name);
    out.push(relative(ROOT, path).split("\\").join("/"));
    if (statSync(path).isDirectory()) walk(path, out);
  }
  return out;
}

/** Every file and folder of the repository, as repository-relative paths. */
const TREE = walk(ROOT);
const PACKAGES = readdirSync(join(ROOT, "packages"));

/**
 * Paths the pages name that are not files of this repository, each with its reason. An entry no
 * page still names fails a test, so the list cannot go stale.
 */
const NOT_OURS: Record<string, string> = {
  "resources/beta/**.js":
    "a folder of the provider's official SDK (@anthropic-ai/sdk), which docs/sims.md cites",
  "core/streaming.js": "a file of the provider's official SDK",
  "sessions/events.d.ts": "a file of the provider's official SDK",
  "agents/agents.d.ts": "a file of the provider's official SDK",
  "sessions/threads/threads.d.ts": "a file of the provider's official SDK",
  "deployment-runs.d.ts": "a file of the provider's official SDK",
  "src/widget.ts": "a file of the forge simulator's seeded repository acme/widgets",
  "src/cache.test.ts": "a file the seeded branch feature/layout-cache of acme/widgets adds",
  "docs/guide.md": "a file of the seeded repository acme/widgets",
  "prompts/reviewer.md": "a file of the user's project, in an example agents.yaml",
  "team/style.md": "a memory's path in the examples of `agents memory`",
  "DIR/team/style.md": "a memory file's path under the folder `agents memory import` reads",
  "notes/a.md": "a memory's key in the provider_b table",
  "a/agents.yaml": "the old side of the unified diff `agents sync --dry-run` prints",
  "b/agents.yaml": "the new side of that diff",
  "OLD/main.js": "a placeholder for the other build a benchmark compares",
  "tests/*.test.yaml": "the test files `agents test` reads beside a user's agents.yaml",
};

/** The bundles each package's scripts/bundle.mjs writes: build output with no source of its name. */
const BUNDLES = [
  "packages/agents/dist/agents.cjs",
  "packages/agents/dist/agents.mjs",
  "packages/agents/dist/playground.js",
  "packages/forge-mcp/dist/forge-mcp.mjs",
];

/** Where the repository holds files (named from the root: `packages/x/src/a.ts`, `scripts/demo.mjs`). */
const ROOTED = /^(packages|scripts|examples|bench|docs)\//;
/** A package's own folders, named without the package (`src/oauth/bearer.ts`, `test/e2e/`). */
const IN_A_PACKAGE = /^(src|test)\//;
/** A file of code, configuration or docs, named from a folder the text gives (`config/graph.ts`). */
const CODE_FILE = /\.(ts|mts|mjs|cjs|js|json|ya?ml|md|sh)$/;
/** A module named without a folder (`heap.ts`, `line-yaml.ts`). */
const MODULE = /^[\w.-]+\.(ts|mts|mjs|cjs)$/;
/**
 * A path-like word: not inside a URL, an absolute path, `~/…` or `$VAR/…` (the look-behind), made of
 * name characters and slashes; a `<placeholder>` or `{…}` ends it.
 */
const WORD = /(?<![\w./:@~$*-])(?:\.{1,2}\/)*[\w@][\w@.-]*(?:\/[\w@.*-]+)*\/?/g;

/** A path a page names; `link` when it is a Markdown link's target, which is relative to the page. */
type Named = { doc: string; line: number; path: string; link: boolean };

/** The paths a page names that should be the repository's: line by line, fenced blocks included. */
function namedPaths(doc: string, text: string): Named[] {
  const out: Named[] = [];
  text.split("\n").forEach((line, i) => {
    for (const m of line.matchAll(WORD)) {
      const path = m[0].replace(/\.+$/, "");
      const link = line.slice(0, m.index).endsWith("](");
      if (link && line[m.index + m[0].length] === ":") continue; // a URL
      // `./x` outside a link is relative to where the reader runs a command, not to the repository
      const checked =
        link ||
        (!path.startsWith(".") &&
          (ROOTED.test(path) ||
            IN_A_PACKAGE.test(path) ||
            (path.includes("/") && CODE_FILE.test(path)) ||
            MODULE.test(path)));
      if (checked) out.push({ doc, line: i + 1, path, link });
    }
  });
  return out;
}

/** Why the named path is not in `tree` (the repository's paths), or undefined when it is. */
function missing(named: Named, tree: readonly string[], packages: readonly string[]): string | undefined {
  const has = (p: string) => tree.includes(p);
  const path = named.path.replace(/\/$/, "");
  if (named.link) {
    const resolved = posix.normalize(posix.join(posix.dirname(named.doc), path));
    return has(resolved) ? undefined : `links to ${resolved}, which does not exist`;
  }
  if (/(^|\/)dist\//.test(path)) {
    if (BUNDLES.some((b) => b === path || b.endsWith(`/${path}`))) return undefined;
    const source = path.replace(/(^|\/)dist\//, "$1src/").replace(/\.js$/, ".ts");
    const why = missing({ ...named, path: source }, tree, packages);
    return why && `build output of ${source}, which is ${why}`;
  }
  if (ROOTED.test(path)) return has(path) ? undefined : "not found from the repository's root";
  if (IN_A_PACKAGE.test(path))
    return packages.some((p) => has(`packages/${p}/${path}`))
      ? undefined
      : `in no package: packages/{${packages.join(",")}}/${path}`;
  if (path.includes("/"))
    return tree.some((p) => p.endsWith(`/${path}`)) ? undefined : "no file ends with it";
  return tree.some((p) => p === path || p.endsWith(`/${path}`)) ? undefined : "no file has that name";
}

const PAGES = ["README.md", ...TREE.filter((p) => p.startsWith("docs/") && p.endsWith(".md"))];
const NAMED = PAGES.flatMap((doc) => namedPaths(doc, readFileSync(join(ROOT, doc), "utf8")));

describe("paths named in README.md and docs/", () => {
  it("reads the pages and finds their paths (the scan is not empty)", () => {
    expect(PAGES).toContain("docs/architecture.md");
    expect(NAMED.length).toBeGreaterThan(300);
    expect(NAMED.filter((n) => IN_A_PACKAGE.test(n.path)).length).toBeGreaterThan(30);
  });

  it("exist in the repository", () => {
    const broken = NAMED.filter((n) => NOT_OURS[n.path] === undefined).flatMap((n) => {
      const why = missing(n, TREE, PACKAGES);
      return why ? [`${n.doc}:${n.line}: ${n.path} (${why})`] : [];
    });
    expect(broken, `paths that name nothing in the repository:\n${broken.join("\n")}\n`).toEqual([]);
  });

  it("need each of their exceptions, and the bundles are the build's", () => {
    expect(Object.keys(NOT_OURS).filter((path) => !NAMED.some((n) => n.path === path))).toEqual([]);
    const bundler = (b: string) =>
      readFileSync(join(ROOT, b.replace(/\/dist\/.*/, "/scripts/bundle.mjs")), "utf8");
    expect(BUNDLES.filter((b) => !bundler(b).includes(`"${posix.basename(b)}"`))).toEqual([]);
  });
});

describe("the path rules", () => {
  const tree = [
    "docs",
    "docs/sims.md",
    "examples",
    "examples/forge-mcp",
    "packages",
    "packages/agents",
    "packages/agents/src",
    "packages/agents/src/cli",
    "packages/agents/src/cli/commands",
    "packages/agents/src/cli/commands/index.ts",
    "packages/sims",
    "packages/sims/src",
    "packages/sims/src/cli.ts",
    "packages/sims/test",
    "packages/sims/test/e2e",
  ];
  const check = (line: string) =>
    namedPaths("docs/x.md", line).map((n) => [n.path, missing(n, tree, ["agents", "sims"]) ?? "ok"]);

  it("checks paths from the root, in a package, from a folder the text gives, bare modules and links", () => {
    expect(
      check(
        "`packages/agents/src/cli/commands/index.ts`, `packages/agents/src/gone.ts`, `src/cli/`, `test/e2e/`, " +
          "`src/nope.ts`, `commands/index.ts`, `rest/project-more.ts`, `index.ts`, `heap.ts`, " +
          "[ex](../examples/forge-mcp), [sims](./sims.md), [no](../examples/nope)",
      ),
    ).toEqual([
      ["packages/agents/src/cli/commands/index.ts", "ok"],
      ["packages/agents/src/gone.ts", "not found from the repository's root"],
      ["src/cli/", "ok"],
      ["test/e2e/", "ok"],
      ["src/nope.ts", "in no package: packages/{agents,sims}/src/nope.ts"],
      ["commands/index.ts", "ok"],
      ["rest/project-more.ts", "no file ends with it"],
      ["index.ts", "ok"],
      ["heap.ts", "no file has that name"],
      ["../examples/forge-mcp", "ok"],
      ["./sims.md", "ok"],
      ["../examples/nope", "links to examples/nope, which does not exist"],
    ]);
  });

  it("checks build output as its source, and knows the bundles", () => {
    expect(
      check("`packages/sims/dist/cli.js`, `packages/sims/dist/gone.js`, `dist/agents.cjs`, `dist/other.cjs`"),
    ).toEqual([
      ["packages/sims/dist/cli.js", "ok"],
      [
        "packages/sims/dist/gone.js",
        "build output of packages/sims/src/gone.ts, which is not found from the repository's root",
      ],
      ["dist/agents.cjs", "ok"],
      [
        "dist/other.cjs",
        "build output of src/other.cjs, which is in no package: packages/{agents,sims}/src/other.cjs",
      ],
    ]);
  });

  it("leaves URLs, absolute paths, the reader's own paths, placeholders, API routes and words alone", () => {
    expect(
      check(
        "https://gitlab.example.com/api/v4/projects/src/a.ts /tmp/src/a.ts ~/.config/x.ts $HOME/src/a.ts " +
          "[docs](https://example.com/docs/a.md) `agents memory import notes ./memories` " +
          "`GET /projects/:id/merge_requests/:iid` text/plain and/or CI/CD `packages/agents/src/cli/<name>/`",
      ),
    ).toEqual([["packages/agents/src/cli/", "ok"]]);
  });
});

describe("the layer tables of docs/architecture.md", () => {
  const text = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");

  /** The names in the first column of the `| Folder | Holds |` table under `## <section>`. */
  function tableNames(section: string): string[] {
    const body = text.split(/^## /m).find((s) => s.startsWith(`${section}\n`)) ?? "";
    const lines = body.slice(body.indexOf("| Folder | Holds |")).split("\n").slice(2);
    const end = lines.findIndex((l) => !l.startsWith("|"));
    return lines
      .slice(0, end < 0 ? lines.length : end)
      .flatMap((row) =>
        [...(row.split("|")[1] ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/\/$/, "")),
      );
  }

  for (const pkg of ["agents", "forge-mcp"]) {
    it(`name every top-level folder and module of packages/${pkg}/src`, () => {
      const entries = readdirSync(join(ROOT, "packages", pkg, "src")).filter((n) => !n.includes(".test."));
      const named = tableNames(pkg);
      expect(named.length).toBeGreaterThan(5);
      expect(
        entries
          .filter((e) => !named.includes(e))
          .map((e) => `docs/architecture.md, ## ${pkg}: no row names ${e}`),
      ).toEqual([]);
      expect(
        named
          .filter((n) => !entries.includes(n))
          .map((n) => `docs/architecture.md, ## ${pkg}: ${n} is not in src/`),
      ).toEqual([]);
    });
  }
});
