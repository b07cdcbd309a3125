import { fileURLToPath } from "node:url";
import { type LoadResult, loadConfigText } from "../../src/config/index.js";

export const FIXTURE_DIR = fileURLToPath(new URL("../fixtures/files/", import.meta.url));
export const FIXTURE_FILE = `${FIXTURE_DIR}agents.yaml`;
export const TEST_ENV = {
  KEY: "key-value-for-tests",
  TOKEN: "token-value-for-tests",
  STATE_URL: "postgres://agents:state-pw-for-tests@127.0.0.1:5432/agents",
};

const MARK = "@@";

/** Provider blocks for test configs, each valid on its own. */
export const PROVIDER_BLOCKS: Record<string, string> = {
  provider_a: "  provider_a:\n    api_key: ${KEY}\n    workspace_id: llm-test",
  provider_b: "  provider_b:\n    api_key: ${KEY}",
  provider_c: "  provider_c:\n    api_key: ${KEY}",
  provider_d: "  provider_d:\n    api_key: ${KEY}",
};

/** A config declaring `providers`, then `body` (top-level YAML). */
export function cfg(providers: string[], body: string, defaults = ""): string {
  // Rows using the `forward` agent lines reference environment `fwd`: declare it once.
  if (/^\s*environment: fwd$/m.test(body)) {
    const fwd = "  fwd:\n    config: {type: cloud}";
    body = /^environments:$/m.test(body)
      ? body.replace(/^environments:$/m, `environments:\n${fwd}`)
      : `${body}\nenvironments:\n${fwd}`;
  }
  return [
    'version: "1"',
    "providers:",
    ...providers.map((p) => PROVIDER_BLOCKS[p]!),
    ...(defaults ? ["defaults:", defaults] : []),
    body,
  ].join("\n");
}

/** Where `@@` sits in the text (1-based line and column), and the text without it. */
export function locateMark(text: string): { text: string; line?: number; col?: number } {
  const index = text.indexOf(MARK);
  if (index < 0) return { text };
  const before = text.slice(0, index);
  const line = before.split("\n").length;
  const col = index - before.lastIndexOf("\n");
  return { text: text.replace(MARK, ""), line, col };
}

export function load(text: string, env: Record<string, string> = TEST_ENV): LoadResult {
  return loadConfigText(text, FIXTURE_FILE, { env });
}

export function errorsOf(result: LoadResult) {
  return result.diagnostics.filter((d) => d.severity === "error");
}

export function render(result: LoadResult): string {
  return result.diagnostics.map((d) => `${d.line}:${d.col} ${d.severity} ${d.code} ${d.message}`).join("\n");
}
