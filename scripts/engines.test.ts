// The Node versions the repository promises are `engines.node` of package.json (the README says the
// same in words). A dependency that wants a newer Node breaks that promise quietly: npm only warns
// (EBADENGINE) and installs it anyway, as it did for @babel/parser 8 (Node >= 22.18) while the
// README said Node 20. This reads package-lock.json and fails on any package whose own `engines`
// leaves out a version the repository promises.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import semver from "semver";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const json = (path: string) => JSON.parse(readFileSync(join(ROOT, path), "utf8"));

type Locked = {
  version?: string;
  engines?: { node?: string } | string[];
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};
const lock = json("package-lock.json") as { packages: Record<string, Locked> };
const promised: string = json("package.json").engines.node;

/**
 * The root's devDependencies that never run on the promised Node: the MCP conformance suite needs
 * Node >= 22 and scripts/conformance.mjs runs it on the npm registry's Node 22 (scripts/registry-node.mjs).
 */
const OWN_NODE = ["@modelcontextprotocol/conformance", "mcp-conformance-next"];

/** Lockfile paths reachable from the root without passing through `skip` (Node's resolution). */
function reachable(packages: Record<string, Locked>, skip: string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (path: string) => {
    const p = packages[path];
    if (!p) return;
    const names = { ...p.dependencies, ...p.optionalDependencies, ...(path === "" ? p.devDependencies : {}) };
    for (const name of Object.keys(names)) {
      if (path === "" && skip.includes(name)) continue;
      // the nearest node_modules/<name> up from `path`, as Node resolves it
      let from = path;
      for (;;) {
        const candidate = `${from ? `${from}/` : ""}node_modules/${name}`;
        if (packages[candidate]) {
          if (!seen.has(candidate)) {
            seen.add(candidate);
            visit(candidate);
          }
          break;
        }
        if (!from) break;
        from = from.includes("/node_modules/") ? from.slice(0, from.lastIndexOf("/node_modules/")) : "";
      }
    }
  };
  visit("");
  // the workspaces' own entries and what they need
  for (const path of Object.keys(packages)) if (path && !path.includes("node_modules")) visit(path);
  return seen;
}

/** The lockfile's packages whose Node range does not hold every version `range` allows. */
function narrower(packages: Record<string, Locked>, range: string, skip: string[] = []): string[] {
  const used = skip.length ? reachable(packages, skip) : undefined;
  return Object.entries(packages).flatMap(([path, p]) => {
    const wants = Array.isArray(p.engines) ? undefined : p.engines?.node;
    if (!path || !wants || semver.subset(range, wants)) return [];
    if (used && path.includes("node_modules/") && !used.has(path)) return [];
    return [`${path.replace(/^.*node_modules\//, "")}@${p.version}: node ${wants}`];
  });
}

describe("the Node versions the repository promises", () => {
  it("are one range, the same in every workspace package", () => {
    expect(semver.validRange(promised)).not.toBeNull();
    const workspaces: string[] = json("package.json").workspaces;
    expect(workspaces.map((w) => [w, json(`${w}/package.json`).engines?.node])).toEqual(
      workspaces.map((w) => [w, promised]),
    );
  });

  it("include the Node running this test", () => {
    expect(semver.satisfies(process.version, promised), `${process.version} is not in ${promised}`).toBe(
      true,
    );
  });

  it("are all supported by every package npm installs (but the conformance suite's, run on Node 22)", () => {
    expect(narrower(lock.packages, promised, OWN_NODE)).toEqual([]);
  });

  it("exempt only what the conformance suite alone needs", () => {
    const packages = {
      "": { devDependencies: { suite: "1", tool: "1" } },
      "node_modules/suite": { version: "1.0.0", dependencies: { shared: "1", only: "1" } },
      "node_modules/tool": { version: "1.0.0", dependencies: { shared: "1" } },
      "node_modules/shared": { version: "2.0.0", engines: { node: ">=22" } },
      "node_modules/only": { version: "3.0.0", engines: { node: ">=22" } },
      "node_modules/suite/node_modules/nested": { version: "1.0.0", engines: { node: ">=22" } },
    };
    expect(narrower(packages, "^20.19.0", ["suite"])).toEqual(["shared@2.0.0: node >=22"]);
  });

  it("are checked as a range against a range, not one version against another", () => {
    const packages = {
      "": { engines: { node: ">=20" } },
      "node_modules/@babel/parser": { version: "8.1.3", engines: { node: "^22.18.0 || >=24.11.0" } },
      "node_modules/undici": { version: "7.30.2", engines: { node: ">=20.18.1" } },
      "node_modules/old": { version: "1.0.0", engines: ["node >= 0.8"] },
      "node_modules/plain": { version: "1.0.0" },
    };
    expect(narrower(packages, "^20.19.0 || ^22.13.0 || >=24.0.0")).toEqual([
      "@babel/parser@8.1.3: node ^22.18.0 || >=24.11.0",
    ]);
    expect(narrower(packages, ">=20.10")).toEqual([
      "@babel/parser@8.1.3: node ^22.18.0 || >=24.11.0",
      "undici@7.30.2: node >=20.18.1",
    ]);
  });
});
