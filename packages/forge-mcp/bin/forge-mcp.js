#!/usr/bin/env node
// The installed command. The program is compiled and bundled into dist/forge-mcp.mjs (by
// `npm run build` in the repository: scripts/bundle.mjs, and shipped in the published package);
// this file exists before the build so that npm links the command at install time.
import { existsSync } from "node:fs";

const program = new URL("../dist/forge-mcp.mjs", import.meta.url);
if (!existsSync(program)) {
  process.stderr.write(
    "forge-mcp: the compiled program is missing (dist/forge-mcp.mjs): run `npm run build` first\n",
  );
  process.exit(1);
}
await import(program.href);
