// Every flag a message or hint names exists (issue 10: a hint told users to run
// `agents destroy -target`, a flag that does not exist). Scans the CLI's own source text.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/program.js";

const SRC = fileURLToPath(new URL("../../src", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith(".ts") ? [path] : [];
  });
}

function longFlags(command: Command): string[] {
  return [
    ...command.options.map((o) => o.long).filter((l): l is string => !!l),
    ...command.commands.flatMap(longFlags),
  ];
}

const known = new Set([...longFlags(await buildProgram()), "--help", "--version"]);
const texts = sources(SRC).map((path) => ({ path, text: readFileSync(path, "utf8") }));

describe("flags named in messages and hints", () => {
  it("every --flag in the source is an option of some command", () => {
    const unknown = texts.flatMap(({ path, text }) =>
      // a CSS custom property (the playground page's `--delete: …` and `var(--delete)`) is not a flag
      [...text.matchAll(/(?<![\w-])(?<!var\()--[a-z][a-z-]+(?![\w-]|\s*:)/g)]
        .map((m) => m[0])
        .filter((flag) => !known.has(flag))
        .map((flag) => `${path}: ${flag}`),
    );
    expect(unknown).toEqual([]);
  });

  it("no message spells a long option with one dash (-target)", () => {
    const names = [...known].map((flag) => flag.slice(2));
    const wrong = texts.flatMap(({ path, text }) =>
      [...text.matchAll(/(?<=[\s(`'"])-([a-z][a-z-]+)\b/g)]
        .filter((m) => names.includes(m[1]!))
        .map((m) => `${path}: ${m[0]}`),
    );
    expect(wrong).toEqual([]);
  });

  it("knows the flags it checks against", () => {
    expect(known).toContain("--target");
    expect(known).toContain("--cascade");
  });
});
