// compareDiagnostics skips localeCompare for equal texts (its first call loads collation data);
// the order must stay the one `localeCompare` on every field gave.
import fc from "fast-check";
import { expect, it } from "vitest";
import { compareDiagnostics, type Diagnostic } from "../../src/config/diagnostics.js";

const byLocale = (a: Diagnostic, b: Diagnostic) =>
  a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col || a.code.localeCompare(b.code);

const diagnostic = fc.record({
  code: fc.constantFrom("AGENTS1007", "AGENTS1010", "AGENTS1040", "AGENTS1203", "agents1007"),
  severity: fc.constantFrom("error" as const, "warning" as const),
  message: fc.constant("m"),
  file: fc.constantFrom("/p/agents.yaml", "/p/.env", "/p/Agents.yaml", "/p/é.yaml", "/p/e.yaml"),
  line: fc.integer({ min: 1, max: 3 }),
  col: fc.integer({ min: 1, max: 3 }),
});

it("orders diagnostics as localeCompare on file and code does", () => {
  fc.assert(
    fc.property(fc.array(diagnostic, { maxLength: 12 }), (list) => {
      expect([...list].sort(compareDiagnostics)).toEqual([...list].sort(byLocale));
    }),
    { numRuns: 200 },
  );
});
