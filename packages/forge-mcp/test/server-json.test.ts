import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";

/** The MCP Registry entry (server.json) describes this package as it is. */

const dir = new URL("../", import.meta.url);
const server = JSON.parse(readFileSync(new URL("server.json", dir), "utf8"));
const pkg = JSON.parse(readFileSync(new URL("package.json", dir), "utf8"));

describe("server.json", () => {
  it("names this package, its version and its mcpName", () => {
    expect(server.$schema).toMatch(
      /^https:\/\/static\.modelcontextprotocol\.io\/schemas\/\d{4}-\d{2}-\d{2}\/server\.schema\.json$/,
    );
    expect(server.name).toBe(pkg.mcpName);
    expect(server.name.split("/")).toHaveLength(2);
    expect(server.version).toBe(pkg.version);
    expect(server.description.length).toBeLessThanOrEqual(100);
    expect(pkg.files).toContain("server.json");
    for (const p of server.packages) {
      expect(p).toMatchObject({ registryType: "npm", identifier: pkg.name, version: pkg.version });
      expect(p.transport).toEqual({ type: "stdio" });
    }
  });

  type Var = { name: string; default?: string; choices?: string[] };
  const vars: Var[] = server.packages.flatMap((p: { environmentVariables: Var[] }) => p.environmentVariables);
  it.each(vars.map((v): [string, Var] => [v.name, v]))(
    "%s is read by the configuration, with the default and choices it states",
    (name: string, v: Var) => {
      const base = { FORGE_TOKEN: "t" };
      const c = loadConfig(base);
      const probe = v.choices?.[0] ?? (name === "FORGE_API_URL" ? "https://forge.example/api/v4" : "x/y");
      // the variable changes the configuration (so it is read), and its stated default is the default
      expect(JSON.stringify(loadConfig({ ...base, [name]: probe }))).not.toBe(JSON.stringify(c));
      if (v.default !== undefined) expect(JSON.stringify(c)).toContain(JSON.stringify(v.default));
    },
  );
});
