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
