#!/usr/bin/env node
// Bundles the compiled server (dist/main.js) and its dependencies with esbuild into
// dist/forge-mcp.mjs and the chunks it imports (dist/chunks/): the `forge-mcp` command
// (bin/forge-mcp.js) runs it. Loading ~500 separate modules one by one (express, undici, the MCP
// SDK, zod) was most of a start: 1.0-1.3 s of CPU from `node` to "forge-mcp listening" on the
// 2-core bench machine, 0.62-0.73 s bundled (bench/results/test-suite.md, 2026-12-07). Each module
// main.ts imports with import() starts a chunk, loaded when main() imports it, as before: --help and
// --version load none of them, and the young generation is held while they load (src/heap.ts).
// dist/index.js (the library) stays unbundled.
import { existsSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const dist = new URL("../dist/", import.meta.url);
rmSync(fileURLToPath(new URL("chunks/", dist)), { recursive: true, force: true });
await build({
  entryPoints: { "forge-mcp": fileURLToPath(new URL("main.js", dist)) },
  outdir: fileURLToPath(dist),
  outExtension: { ".js": ".mjs" },
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // Loaded with import() only when REDIS_URL is set; node's own import() gives the CommonJS client's
  // named exports, which a split bundle's chunk for it would not.
  external: ["redis"],
  // The CommonJS dependencies (express, undici, pino) require() node's own modules: an ES module has
  // no `require`, so the bundle makes one.
  banner: {
    js: 'import { createRequire as __forgeMcpRequire } from "node:module";\nconst require = __forgeMcpRequire(import.meta.url);',
  },
  legalComments: "none",
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: "warning",
});
// bin/forge-mcp.js runs this file: fail the build, not the installed command, if it is elsewhere.
if (!existsSync(new URL("forge-mcp.mjs", dist)))
  throw new Error("the bundle did not write dist/forge-mcp.mjs");
