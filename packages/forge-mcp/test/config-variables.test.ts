import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import type { Variable } from "../src/config-readers.js";
import {
  FILE_VARIABLES,
  registryVariables,
  VARIABLES,
  variablesTable,
  withVariablesTable,
} from "../src/config-variables.js";

/**
 * The variable table is the one source: docs/forge-mcp.md's configuration table and server.json's
 * variables are generated from it (regenerate: npm run build && node packages/forge-mcp/scripts/docs.mjs).
 */

const DOC = fileURLToPath(new URL("../../../docs/forge-mcp.md", import.meta.url));
const SERVER_JSON = fileURLToPath(new URL("../server.json", import.meta.url));
const rows: readonly Variable[] = VARIABLES;

describe("the variable table", () => {
  it("is docs/forge-mcp.md's configuration table", () => {
    const doc = readFileSync(DOC, "utf8");
    expect(withVariablesTable(doc)).toBe(doc);
    for (const v of rows) expect(doc).toContain(`| \`${v.name}\``);
  });

  it("is server.json's environment variables", () => {
    const server = JSON.parse(readFileSync(SERVER_JSON, "utf8"));
    for (const p of server.packages) expect(p.environmentVariables).toEqual(registryVariables());
  });

  it("names each variable and each settings key once", () => {
    const names = rows.flatMap((v) => [v.name, ...(v.aliases ?? [])]);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(rows.map((v) => v.key)).size).toBe(rows.length);
    expect(
      variablesTable()
        .split("\n")
        .filter((l) => l.startsWith("| `")),
    ).toHaveLength(rows.length);
  });

  it.each(rows.filter((v) => v.default !== undefined).map((v): [string, string] => [v.name, v.default!]))(
    "%s=%s is what leaving it unset gives",
    (name, value) => {
      expect(loadConfig({ [name]: value })).toEqual(loadConfig({}));
    },
  );

  it("reads the secrets, and what names them, from NAME_FILE", () => {
    expect([...FILE_VARIABLES].sort()).toEqual(
      [
        "FORGE_TOKEN",
        "GITLAB_TOKEN",
        "GITLAB_PERSONAL_ACCESS_TOKEN",
        "FORGE_JOB_TOKEN",
        "GITLAB_JOB_TOKEN",
        "OAUTH_STATELESS_SECRET",
        "OAUTH_STATELESS_SECRET_PREVIOUS",
        "REDIS_URL",
        "METRICS_BEARER_TOKEN",
        "FORGE_OAUTH_APP_ID",
        "GITLAB_OAUTH_APP_ID",
      ].sort(),
    );
  });
});
