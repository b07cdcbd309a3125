// Regenerates what docs/forge-mcp.md and server.json derive from the sources: the tools table
// (from the tool registry), the configuration table and server.json's environment variables
// (from the variable table, src/config-variables.ts).
// Run: npm run build && node packages/forge-mcp/scripts/docs.mjs
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const { withToolsTable } = await import("../dist/tools/docs.js");
const { registryVariables, withVariablesTable } = await import("../dist/config-variables.js");
const doc = fileURLToPath(new URL("../../../docs/forge-mcp.md", import.meta.url));
writeFileSync(doc, withVariablesTable(withToolsTable(readFileSync(doc, "utf8"))));
console.log(`wrote ${doc}`);

const server = fileURLToPath(new URL("../server.json", import.meta.url));
const entry = JSON.parse(readFileSync(server, "utf8"));
for (const p of entry.packages) p.environmentVariables = registryVariables();
writeFileSync(server, `${JSON.stringify(entry, null, 2)}\n`);
// the repository's JSON layout (biome), so a regeneration that changes nothing leaves no diff
execFileSync("npx", ["biome", "format", "--write", server], { stdio: "inherit" });
console.log(`wrote ${server}`);
