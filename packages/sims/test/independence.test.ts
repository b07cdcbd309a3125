import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SIMS = fileURLToPath(new URL("../", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(join(SIMS, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => join(entry.parentPath, entry.name));
}

const importsOf = (file: string) =>
  [...readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)].map(
    (m) => m[1] ?? "",
  );

/**
 * A simulator is a second, independent reading of the wire: if it shared the adapters' code, a wire
 * mistake would be mirrored and every test would still pass. The official SDK is an oracle for tests
 * only (a devDependency), never part of a simulator.
 */
describe("sims stay independent of the code they are a second reading for", () => {
  it.each([
    ["agents", /(^@agents\/agents)|(\/agents\/src\/)|(^\.\.\/.*\.\.\/agents\/)/],
    ["forge-mcp", /(^@agents\/forge-mcp)|forge-mcp/],
    ["the provider SDK", /^@anthropic-ai\//],
  ])("src/ imports nothing from %s", (_name, pattern) => {
    const offenders = sources("src").filter((file) => importsOf(file).some((spec) => pattern.test(spec)));
    expect(offenders.map((f) => relative(SIMS, f))).toEqual([]);
  });

  it.each([
    ["agents", /(^@agents\/agents)|(\/agents\/src\/)/],
    ["forge-mcp", /(^@agents\/forge-mcp)|forge-mcp\/src/],
  ])("test/ imports nothing from %s", (_name, pattern) => {
    const offenders = sources("test").filter((file) => importsOf(file).some((spec) => pattern.test(spec)));
    expect(offenders.map((f) => relative(SIMS, f))).toEqual([]);
  });
});
