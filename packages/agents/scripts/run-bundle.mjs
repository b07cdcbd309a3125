#!/usr/bin/env node
// dist/agents.mjs, the `agents` program: runs the bundled CLI (dist/agents.cjs) compiled from V8's
// code cache when the cache matches the bundle, so a command starts without parsing and compiling
// a megabyte of JavaScript again (Node 20 has no compile cache of its own for this). The cache is
// written by `npm run build` (scripts/bundle.mjs) and begins with the SHA-256 of the bundle it was
// made from: V8 itself checks only the length of the source, so a cache of another bundle of the
// same length would otherwise be taken. No cache, or a rejected one, only costs the compile.
import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";

const file = fileURLToPath(new URL("./agents.cjs", import.meta.url));
const cacheFile = `${file}.cache`;
// The bytes are hashed as they are (hashing the decoded text would encode it to UTF-8 again), and
// decoded as Latin-1 when they are ASCII, as esbuild writes them: the same text as UTF-8 decoding
// gives, a few times faster for a megabyte.
const bytes = readFileSync(file);
const source = isAscii(bytes) ? bytes.latin1Slice() : bytes.toString("utf8");
const digest = createHash("sha256").update(bytes).digest("hex");
let cachedData;
try {
  const blob = readFileSync(cacheFile);
  if (blob.subarray(0, digest.length).toString("latin1") === digest)
    cachedData = blob.subarray(digest.length);
} catch {
  // no cache: compile
}
// The CommonJS wrapper on the bundle's first line, so line numbers in stack traces stay true.
const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
  filename: file,
  ...(cachedData ? { cachedData } : {}),
});
if (process.env.AGENTS_WRITE_CODE_CACHE === "1") {
  // After the run, so the cache holds the functions the run compiled, not only the top level.
  process.on("exit", () =>
    writeFileSync(cacheFile, Buffer.concat([Buffer.from(digest, "latin1"), script.createCachedData()])),
  );
}
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
