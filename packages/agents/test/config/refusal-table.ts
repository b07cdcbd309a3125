// The side-by-side table of docs/providers.md ("Apply-time refusals"), rendered from the catalog:
// apply-refusals.test.ts checks the docs hold it. To print it:
//   npx tsx packages/agents/test/config/refusal-table.ts
import { pathToFileURL } from "node:url";
import { DIAGNOSTIC_CODES } from "../../src/config/diagnostics.js";
import { PROVIDER_NAMES, PROVIDERS } from "../../src/providers/catalog.js";

/**
 * Listed refusals whose trigger is not written yet: each names its validate rule in the catalog,
 * but neither half is proven. The first test keeps this set exactly the listed refusals without a
 * trigger, so it only shrinks; docs/providers.md marks these rows.
 */
export const UNPROVEN = new Set<string>([]);

/** One row per refusal, the apply message beside the validate rule. */
export function refusalTable(): string {
  const rows = PROVIDER_NAMES.flatMap((p) => PROVIDERS[p].applyRefusals.map((r) => [p, r] as const));
  const cell = (text: string) => text.replaceAll("|", "\\|");
  return [
    "| Listed by | Refusal | Kind | Apply refuses with | Validate reports it as |",
    "|---|---|---|---|---|",
    ...rows.map(
      ([p, r]) =>
        `| ${p} | \`${r.id}\` | ${r.kind} | ${cell(r.message)} | ${r.rule}: ${cell(DIAGNOSTIC_CODES[r.rule as keyof typeof DIAGNOSTIC_CODES])}${UNPROVEN.has(r.id) ? " (not yet proven by a test)" : ""} |`,
    ),
  ].join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) console.log(refusalTable());
