// Regenerates docs/configuration.md from the schema and the provider capability data.
// Run: npm run build && node packages/agents/scripts/docs.mjs
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const { configurationReference } = await import("../dist/config/docs.js");
const target = fileURLToPath(new URL("../../../docs/configuration.md", import.meta.url));
writeFileSync(target, configurationReference());
console.log(`wrote ${target}`);
