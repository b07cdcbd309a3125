import { describe, expect, it } from "vitest";
import { DIAGNOSTIC_CODES } from "../../../src/config/diagnostics.js";
import { errorsOf, load, locateMark, render } from "../helpers.js";
import { AGENTS_RULES } from "./rows-agents.js";
import { BLOCKS_RULES } from "./rows-blocks.js";
import { CONFIG_RULES } from "./rows-config.js";
import { LIFECYCLE_RULES } from "./rows-lifecycle.js";
import { RUNS_RULES } from "./rows-runs.js";

const RULES = [...CONFIG_RULES, ...AGENTS_RULES, ...RUNS_RULES, ...BLOCKS_RULES, ...LIFECYCLE_RULES];

describe("every rule, invalid and valid side", () => {
  it.each(RULES.map((row) => [`${row.code} ${row.rule}`, row] as const))("%s", (_title, row) => {
    const marked = locateMark(row.invalid);
    const bad = load(marked.text);
    const hit = bad.diagnostics.find((d) => d.code === row.code);
    expect(hit, `expected ${row.code}, got:\n${render(bad)}`).toBeDefined();
    expect(hit!.severity).toBe(row.severity ?? "error");
    expect(marked.line, "the row marks the expected position with @@").toBeDefined();
    expect({ line: hit!.line, col: hit!.col }, render(bad)).toEqual({ line: marked.line, col: marked.col });
    expect(hit!.file.endsWith("agents.yaml")).toBe(true);
    // every finding says how to fix it (a type mismatch's message already names the type)
    if (row.code !== "AGENTS1001") expect(hit!.hint, `${row.code} has a hint`).toBeTruthy();

    const good = load(row.valid);
    expect(errorsOf(good), render(good)).toEqual([]);
    expect(good.diagnostics.filter((d) => d.code === row.code)).toEqual([]);
  });

  it("covers every diagnostic code of the catalog", () => {
    const covered = new Set(RULES.map((row) => row.code));
    const missing = Object.keys(DIAGNOSTIC_CODES).filter(
      (code) => !covered.has(code) && code !== "AGENTS1006",
    );
    expect(missing).toEqual([]);
  });
});
