// The words of the lifecycle diagnostics (rows-lifecycle.ts holds their positions), and the
// declaration graph keeping `lifecycle:` out of what is sent to a provider.
import { describe, expect, it } from "vitest";
import { jsonSchema } from "../../../src/config/json-schema.js";
import { KINDS } from "../../../src/model/kinds.js";
import { cfg, load, render } from "../helpers.js";
import { A, agent, C } from "./rows.js";

const withLifecycle = (providers: string[], ...lines: string[]) =>
  load(cfg(providers, `agents:\n${agent("writer", "lifecycle:", ...lines.map((l) => `  ${l}`))}`));

describe("lifecycle diagnostics", () => {
  it.each([
    {
      row: "a misspelt rule suggests the rule",
      lines: ["prevent_destory: true"],
      code: "AGENTS1002",
      says: ['did you mean "prevent_destroy"'],
    },
    {
      row: "ignore_changes as one word other than all",
      lines: ["ignore_changes: instructions"],
      code: "AGENTS1001",
      says: ["`ignore_changes` is `all` or a list of field paths"],
    },
    {
      row: "a misspelt field path suggests the field",
      lines: ["ignore_changes: [tools.builtn]"],
      code: "AGENTS1800",
      says: [
        "`ignore_changes` names `tools.builtin`".replace("builtin", "builtn"),
        'did you mean "tools.builtin"',
      ],
    },
    {
      row: "a field that is not the resource's own",
      lines: ["ignore_changes: [provider]"],
      code: "AGENTS1800",
      says: ["not a field of agents"],
    },
  ])("$row", ({ lines, code, says }) => {
    const result = withLifecycle(C, ...lines);
    const hit = result.diagnostics.find((d) => d.code === code);
    expect(hit, render(result)).toBeDefined();
    for (const text of says) expect(`${hit!.message} ${hit!.hint ?? ""}`).toContain(text);
  });

  it("create_before_destroy where names are unique says why and what to do", () => {
    const result = withLifecycle(A, "create_before_destroy: true");
    const hit = result.diagnostics.find((d) => d.code === "AGENTS1801")!;
    expect(hit.message).toBe(
      "provider_a keeps the name of each agent unique among live objects, so a replacement cannot create the new agent while the old one still holds it: `create_before_destroy` is not possible here",
    );
    expect(hit.hint).toContain("the old agent is deleted first");
  });

  it("valid paths of every shape are taken", () => {
    const result = withLifecycle(
      C,
      "ignore_changes: [instructions, metadata.team, tools.mcp.*.configs, mcp_servers.0.url]",
    );
    expect(result.diagnostics, render(result)).toEqual([]);
  });

  it("the graph keeps lifecycle beside the spec, never in it", () => {
    const result = withLifecycle(C, "prevent_destroy: true", "ignore_changes: all");
    const node = result.graph!.nodes[0]!;
    expect(node.lifecycle).toEqual({ prevent_destroy: true, ignore_changes: "all" });
    expect(Object.keys(node.spec as object)).not.toContain("lifecycle");
  });
});

describe("the JSON Schema editors read", () => {
  type Kinds = Record<
    string,
    { additionalProperties: { properties: Record<string, { properties: object }> } }
  >;
  let schema: { properties: Kinds } | undefined;
  it.each(KINDS)("%s takes a lifecycle block with the three rules", (kind) => {
    schema ??= jsonSchema() as { properties: Kinds };
    const lifecycle = schema.properties[kind]!.additionalProperties.properties.lifecycle;
    expect(Object.keys(lifecycle?.properties ?? {})).toEqual([
      "prevent_destroy",
      "ignore_changes",
      "create_before_destroy",
    ]);
  });
});
