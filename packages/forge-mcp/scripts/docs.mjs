// Regenerates the tools table of docs/forge-mcp.md from the tool registry.
// Run: npm run build && node packages/forge-mcp/scripts/docs.mjs
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const { withToolsTable } = await import("../dist/tools/docs.js");
const target = fileURLToPath(new URL("../../../docs/forge-mcp.md", import.meta.url));
writeFileSync(target, withToolsTable(readFileSync(target, "utf8")));
console.log(`wrote ${target}`);
