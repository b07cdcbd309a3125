// Regenerates docs/configuration.md from the schema and capability data, formatted by Biome so
// that `npm run lint` accepts it. Run: npm run build && node packages/agents/scripts/docs.mjs
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { formatMarkdown } from "./format-markdown.mjs";

const { configurationReference } = await import("../dist/config/docs.js");
const target = fileURLToPath(new URL("../../../docs/configuration.md", import.meta.url));
writeFileSync(target, formatMarkdown(configurationReference(), spawnSync));
console.log(`wrote ${target}`);
