import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));

/** Format Markdown exactly as `biome format` would format docs/configuration.md. */
export function formatMarkdown(text, spawnSync) {
  const biome = createRequire(import.meta.url).resolve("@biomejs/biome/bin/biome");
  const result = spawnSync(process.execPath, [biome, "format", "--stdin-file-path=docs/configuration.md"], {
    cwd: REPO,
    input: text,
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`biome format failed: ${result.stderr}`);
  return result.stdout;
}
