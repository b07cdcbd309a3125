// The side-by-side table of docs/providers.md ("Apply-time refusals"), rendered from the catalog:
// apply-refusals.test.ts checks the docs hold it. To print it:
//   npx tsx packages/agents/test/config/refusal-table.ts
import { pathToFileURL } from "node:url";
import { DIAGNOSTIC_CODES } from "../../src/config/diagnostics.js";
import { PROVIDER_NAMES, PROVIDERS } from "../../src/providers/catalog.js";

/** One row per refusal, the apply message beside the validate rule. */
export function refusalTable(): string {
  const rows = PROVIDER_NAMES.flatMap((p) => PROVIDERS[p].applyRefusals.map((r) => [p, r] as const));
  return [
    "| Provider | Kind | Apply refuses with | Validate reports it as |",
    "|---|---|---|---|",
    ...rows.map(
      ([p, r]) =>
        `| ${p} | ${r.kind} | ${r.message} | ${r.rule}: ${DIAGNOSTIC_CODES[r.rule as keyof typeof DIAGNOSTIC_CODES]} |`,
    ),
  ].join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) console.log(refusalTable());
