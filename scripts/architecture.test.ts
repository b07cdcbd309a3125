import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(join(SRC, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => join(entry.parentPath, entry.name));
}

const core = [...sources("config"), ...sources("model")];
/** Every folder of the engine core that must stay provider-agnostic. */
const engineCore = ["config", "model", "plan", "apply", "state", "sync", "engine"].flatMap(sources);
const all = sources(".");
const rel = (f: string) => relative(SRC, f);

describe("rules of the house that hold today, guarded", () => {
  it("scans the sources it guards", () => {
    expect(engineCore.length).toBeGreaterThan(40);
    expect(all.length).toBeGreaterThan(engineCore.length);
  });

  it("no folder of the core (config, model, plan, apply, state, sync, engine) branches on a provider name", () => {
    const branch =
      /(===|!==|==|!=|case)\s*["'`]provider_[a-z0-9]+["'`]|["'`]provider_[a-z0-9]+["'`]\s*(===|!==|==|!=)/;
    expect(engineCore.filter((f) => branch.test(readFileSync(f, "utf8"))).map(rel)).toEqual([]);
  });

  it("only providers/http.ts calls fetch", () => {
    const calls = /(^|[^\w.])fetch\s*\(/m;
    const offenders = all
      .filter((f) => rel(f) !== join("providers", "http.ts"))
      .filter((f) => calls.test(readFileSync(f, "utf8").replace(/\/\/.*$/gm, "")))
      .map(rel);
    expect(offenders).toEqual([]);
  });

  it("only cli/ writes to the terminal", () => {
    const writes = /process\.(stdout|stderr)\.write|console\.(log|error|warn|info|debug)\s*\(/;
    const offenders = all
      .filter((f) => !rel(f).startsWith(`cli${"/"}`))
      .filter((f) => writes.test(readFileSync(f, "utf8")))
      .map(rel);
    expect(offenders).toEqual([]);
  });
});

describe("the validation core reads provider facts as data", () => {
  it("never compares against a provider name in config/ or model/", () => {
    const branch =
      /(===|!==|==|!=|case)\s*["'`]provider_[a-z0-9]+["'`]|["'`]provider_[a-z0-9]+["'`]\s*(===|!==|==|!=)/;
    const offenders = core
      .filter((file) => branch.test(readFileSync(file, "utf8")))
      .map((f) => relative(SRC, f));
    expect(offenders).toEqual([]);
  });

  it("reaches provider folders only through the provider catalog", () => {
    const offenders = core
      .filter((file) => !file.endsWith("provider-catalog.ts"))
      .filter((file) => /from\s+["'][./]*\/providers\/provider-/.test(readFileSync(file, "utf8")))
      .map((f) => relative(SRC, f));
    expect(offenders).toEqual([]);
  });
});
