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

type Locked = { version?: string; engines?: { node?: string } | string[] };
const lock = json("package-lock.json") as { packages: Record<string, Locked> };
const promised: string = json("package.json").engines.node;

/** The lockfile's packages whose Node range does not hold every version `range` allows. */
function narrower(packages: Record<string, Locked>, range: string): string[] {
  return Object.entries(packages).flatMap(([path, p]) => {
    const wants = Array.isArray(p.engines) ? undefined : p.engines?.node;
    if (!path || !wants || semver.subset(range, wants)) return [];
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

  it("are all supported by every package npm installs", () => {
    expect(narrower(lock.packages, promised)).toEqual([]);
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
