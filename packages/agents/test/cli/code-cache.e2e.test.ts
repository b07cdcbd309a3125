// dist/agents.mjs runs the bundle from V8's code cache only when the cache was made from that very
// bundle (V8 itself compares only the source length); any other cache, or none, costs the compile.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const dist = fileURLToPath(new URL("../../dist/", import.meta.url));
const bundle = readFileSync(join(dist, "agents.cjs"), "utf8");
const cache = readFileSync(join(dist, "agents.cjs.cache"));

/** A copy of the program with the given bundle text and cache bytes (none when undefined). */
function program(source: string, cacheBytes: Buffer | undefined): string {
  const dir = mkdtempSync(join(tmpdir(), "agents-code-cache-"));
  copyFileSync(join(dist, "agents.mjs"), join(dir, "agents.mjs"));
  writeFileSync(join(dir, "agents.cjs"), source);
  if (cacheBytes) writeFileSync(join(dir, "agents.cjs.cache"), cacheBytes);
  return join(dir, "agents.mjs");
}

const run = (file: string) => spawnSync(process.execPath, [file, "--version"], { encoding: "utf8" });

describe("the program and its code cache", () => {
  it("the build wrote a cache headed by the bundle's SHA-256", async () => {
    const { createHash } = await import("node:crypto");
    expect(cache.subarray(0, 64).toString("latin1")).toBe(createHash("sha256").update(bundle).digest("hex"));
    expect(cache.length).toBeGreaterThan(64);
  });

  it.each([
    ["with its cache", bundle, cache],
    ["without a cache", bundle, undefined],
    ["with a cache that is not a cache", bundle, Buffer.from("x".repeat(200))],
  ])("runs %s", (_case, source, bytes) => {
    const result = run(program(source, bytes));
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("reads a bundle that is not ASCII as UTF-8", () => {
    // esbuild writes ASCII, which the program decodes as Latin-1 (faster); any other byte means
    // UTF-8, and a text printed from the bundle must come out as written.
    const description = "Declarative agents.yaml";
    expect(bundle).toContain(description);
    const result = spawnSync(
      process.execPath,
      [program(bundle.replace(description, "Déclarative agents.yaml"), undefined), "--help"],
      { encoding: "utf8" },
    );
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("Déclarative agents.yaml");
  });

  it("never takes the cache of another bundle of the same length", () => {
    // Same length, other behaviour: the version string changed in place.
    const version = /VERSION\s*=\s*"(\d+\.\d+\.\d+)"/.exec(bundle)?.[1];
    expect(version).toBeDefined();
    const changed = version!.replace(/\d$/, (d) => String((Number(d) + 1) % 10));
    const other = bundle.replace(/VERSION\s*=\s*"\d+\.\d+\.\d+"/, (m) => m.replace(version!, changed));
    expect(other.length).toBe(bundle.length);
    expect(other).not.toBe(bundle);
    const result = run(program(other, cache));
    expect(result.stdout.trim()).toBe(changed);
  });
});
