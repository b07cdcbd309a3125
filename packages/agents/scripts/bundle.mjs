#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli/main.js) and its dependencies into one file, dist/agents.cjs,
// which dist/agents.mjs (the `agents` command: scripts/run-bundle.mjs) runs from V8's code cache.
// One file compiles in one go: start-up drops from about 0.6 s to about 0.35 s on the bench
// machine, against ~400 separate ES modules loaded one by one, and the code cache takes off
// about 50 ms more. `pg` stays outside (it is imported only for a PostgreSQL state, and ships as
// a dependency).
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

/**
 * zod re-exports every translation of its error messages (`z.locales`, ~40 languages, a third of
 * zod's weight in the bundle). agents speaks English and never switches locale, so the locale
 * index resolves to English only; zod registers English by itself.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]/.test(args.importer) ? { path: args.importer, namespace: "zod-locales" } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: 'export { default as en } from "../locales/en.js";',
      resolveDir: dirname(args.path),
      loader: "js",
    }));
  },
};

const dist = new URL("../dist/", import.meta.url);
// The playground's page script (web/playground.js), served by `agents playground` as /app.js.
await build({
  entryPoints: [fileURLToPath(new URL("../web/playground.js", import.meta.url))],
  outfile: fileURLToPath(new URL("playground.js", dist)),
  bundle: true,
  platform: "browser",
  format: "iife",
  target: "es2022",
  minify: true,
  legalComments: "none",
  logLevel: "warning",
});
// The page must stay small (docs/playground.md: under 300 KB gzipped with its HTML and CSS; the
// browser test measures what the server sends). Fail the build well before the test would.
const pageBytes = gzipSync(readFileSync(fileURLToPath(new URL("playground.js", dist)))).length;
if (pageBytes > 250_000) throw new Error(`dist/playground.js is ${pageBytes} bytes gzipped (limit 250000)`);
await build({
  stdin: {
    contents: 'import { main } from "./cli/main.js";\nvoid main();\n',
    resolveDir: fileURLToPath(dist),
    sourcefile: "agents-entry.js",
  },
  outfile: fileURLToPath(new URL("agents.cjs", dist)),
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  external: ["pg"],
  // `import("pg")` becomes require("pg"): the bundle runs as a vm.Script, which has no loader for
  // import(), and pg is CommonJS anyway.
  supported: { "dynamic-import": false },
  plugins: [zodEnglishOnly],
  legalComments: "none",
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: "warning",
});
// The program: a small loader that runs the bundle from V8's code cache (scripts/run-bundle.mjs).
const program = fileURLToPath(new URL("agents.mjs", dist));
copyFileSync(fileURLToPath(new URL("./run-bundle.mjs", import.meta.url)), program);
chmodSync(program, 0o755);
// Warm run that writes the cache: validating an example compiles the configuration code too.
const example = fileURLToPath(new URL("../../../examples/provider-c/agents.yaml", import.meta.url));
const warm = spawnSync(process.execPath, [program, "validate", "-f", example], {
  env: { ...process.env, AGENTS_WRITE_CODE_CACHE: "1" },
  stdio: "ignore",
});
if (warm.error) throw warm.error;
