import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { toolsTable, withToolsTable } from "../../src/tools/docs.js";
import { TOOLSETS } from "../../src/tools/index.js";

const DOC = fileURLToPath(new URL("../../../../docs/forge-mcp.md", import.meta.url));

describe("docs/forge-mcp.md tools table", () => {
  it("is the generated table (regenerate: npm run build && node packages/forge-mcp/scripts/docs.mjs)", () => {
    const doc = readFileSync(DOC, "utf8");
    expect(withToolsTable(doc)).toBe(doc);
  });

  it("has one row per registered tool, and every tool names its endpoint", () => {
    const table = toolsTable();
    const tools = Object.values(TOOLSETS).flat();
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
    for (const t of tools) {
      expect(t.endpoint).toMatch(/^(GET|POST|PUT|DELETE|POST\|PUT) \//);
      expect(table).toContain(`| \`${t.name}\``);
    }
  });
});
