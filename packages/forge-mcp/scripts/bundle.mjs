#!/usr/bin/env node
// Bundles the compiled server (dist/main.js) and its dependencies into one ES module,
// dist/forge-mcp.mjs: the `forge-mcp` command (bin/forge-mcp.js) runs it. Loading ~500 separate
// modules one by one (express, undici, the MCP SDK, zod, redis) was most of a start: about 1.0 s
// of CPU from `node` to "forge-mcp listening" on the 2-core bench machine, 0.65 s bundled
// (bench/results/test-suite.md, 2026-12-07). What main.ts imports with import() stays lazy: esbuild
// wraps those modules in functions that run on the first import(), so a stdio server still never
// evaluates express, and the young generation is still held while the modules load (src/heap.ts).
// dist/index.js (the library) stays unbundled.
import { rmSync } from "node:fs";
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
