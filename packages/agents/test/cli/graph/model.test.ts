// `agents graph` for every example: the nodes and edges the command draws, checked against what
// each agents.yaml declares (read here with a plain YAML parser, not with the loader under test),
// in each of the three formats.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { playgroundConfig } from "../../../../../bench/playground-config.mjs";
import { nodeLabel, type ProjectGraph, projectGraph } from "../../../src/cli/graph/model.js";
import { layoutGraph, renderGraph } from "../../../src/cli/graph/render.js";
import { loadConfig } from "../../../src/index.js";
import { type DrawnGraph, labelOverlaps } from "./geometry.js";

const EXAMPLES = fileURLToPath(new URL("../../../../../examples/", import.meta.url));
const examples = readdirSync(EXAMPLES).filter((name) => {
  try {
    return readFileSync(join(EXAMPLES, name, "agents.yaml")).length > 0;
  } catch {
    return false;
  }
});

type Decl = Record<string, unknown>;

/** Each variable of the example's .env.example with a value of the right shape (no provider is called). */
function exampleEnv(example: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const line of readFileSync(join(EXAMPLES, example, ".env.example"), "utf8").split("\n")) {
    const key = /^([A-Z0-9_]+)=/.exec(line)?.[1];
    if (key === undefined) continue;
    env[key] =
      key === "PROVIDER_A_WORKSPACE_ID"
        ? "llm-graphtest"
        : key.endsWith("_URL")
          ? "https://example.test/mcp"
          : `${key.toLowerCase().replaceAll("_", "-")}-graph-test`;
  }
  return env;
}

/**
 * The plain references of each kind, as the spec defines them: [field, target kind, role], a
 * field holding one name or (`many`) a list of names.
 */
const PLAIN_REFS: Record<string, Array<[field: string, target: string, role: string, many?: "many"]>> = {
  agents: [
    ["environment", "environments", "environment"],
    ["tunnel", "tunnels", "tunnel"],
    ["vault", "vaults", "vault"],
    ["skills", "skills", "skill", "many"],
    ["memory_stores", "memory_stores", "memory store", "many"],
  ],
  deployments: [
    ["agent", "agents", "agent"],
    ["environment", "environments", "environment"],
    ["tunnel", "tunnels", "tunnel"],
    ["vaults", "vaults", "vault", "many"],
    ["memory_stores", "memory_stores", "memory store", "many"],
  ],
  channels: [["agent", "agents", "agent"]],
};

/** The references each declaration writes, by field, as the spec defines them. */
function declaredRefs(kind: string, decl: Decl, doc: Decl): [string, string, string][] {
  const refs: [string, string, string][] = [];
  // A pairing channel is bound at run time: it references nothing.
  if (kind === "channels" && ((decl.mode as string | undefined) ?? "fixed") !== "fixed") return refs;
  for (const [field, target, role, many] of PLAIN_REFS[kind] ?? []) {
    const names = many ? ((decl[field] as unknown[] | undefined) ?? []) : [decl[field]];
    for (const name of names) if (typeof name === "string") refs.push([target, name, role]);
  }
  if (kind === "agents") {
    for (const f of (decl.files as unknown[] | undefined) ?? [])
      if (f && typeof f === "object") refs.push(["files", (f as Decl).file as string, "file"]);
    for (const m of ((decl.multiagent as Decl | undefined)?.agents as unknown[] | undefined) ?? [])
      if (typeof m === "string") refs.push(["agents", m, "roster member"]);
  }
  if (kind === "channels") {
    const identity =
      (decl.identity as string | undefined) ?? ((doc.defaults as Decl | undefined)?.identity as string);
    if (identity) refs.push(["identities", identity, decl.identity ? "identity" : "default identity"]);
  }
  return refs;
}

function targets(decl: Decl, doc: Decl): string[] {
  const declared = Object.keys(doc.providers as Decl);
  const pin =
    (decl.provider as string | undefined) ?? ((doc.defaults as Decl | undefined)?.provider as string);
  if (pin === undefined) return declared;
  return pin === "all" ? declared : [pin];
}

const address = (provider: string, kind: string, name: string) =>
  `${provider}.${kind}[${JSON.stringify(name)}]`;

async function graphOf(example: string): Promise<{ graph: ProjectGraph; doc: Decl; text: string }> {
  const file = join(EXAMPLES, example, "agents.yaml");
  const result = await loadConfig(file, { env: exampleEnv(example) });
  const errors = result.diagnostics.filter((d) => d.severity === "error");
  expect(errors).toEqual([]);
  const graph = projectGraph(result);
  if (!graph) throw new Error(`${example}: no graph`);
  const text = readFileSync(file, "utf8");
  return { graph, doc: parse(text) as Decl, text };
}

describe.each(examples)("agents graph: examples/%s", (example) => {
  it("has a node for each declaration on each provider it targets, at its source line", async () => {
    const { graph, doc, text } = await graphOf(example);
    const lines = text.split("\n");
    const kinds = Object.keys(doc).filter(
      (k) => !["version", "providers", "defaults", "state"].includes(k) && !k.startsWith("x-"),
    );
    let declared = 0;
    for (const kind of kinds)
      for (const [name, decl] of Object.entries(doc[kind] as Record<string, Decl>)) {
        const mine = graph.nodes.filter((n) => n.kind === kind && n.name === name);
        expect(mine.length, `${kind}.${name}`).toBeGreaterThan(0);
        for (const node of mine) {
          if (kind !== "tunnels") expect(targets(decl, doc)).toContain(node.provider);
          expect(lines[node.line - 1]?.trim().startsWith(`${name}:`), `${node.id} at line ${node.line}`).toBe(
            true,
          );
        }
        declared += 1;
      }
    expect(declared).toBeGreaterThan(0);
    expect(new Set(graph.nodes.map((n) => n.id)).size).toBe(graph.nodes.length);
    expect(graph.providers).toEqual([...new Set(graph.nodes.map((n) => n.provider))]);
  });

  it("has exactly the references the declarations write, between nodes of one provider", async () => {
    const { graph, doc } = await graphOf(example);
    const ids = new Set(graph.nodes.map((n) => n.id));
    const expected = graph.nodes.flatMap((node) =>
      declaredRefs(node.kind, (doc[node.kind] as Record<string, Decl>)[node.name] as Decl, doc)
        .map(([kind, name, role]) => ({ from: node.id, to: address(node.provider, kind, name), role }))
        .filter((edge) => ids.has(edge.to)),
    );
    const key = (e: { from: string; to: string; role: string }) => `${e.from} -> ${e.to} (${e.role})`;
    // A Forward agent also depends on the default identity (not written on the agent).
    const drawn = graph.edges.filter((e) => !(e.role === "identity" && e.from.includes(".agents[")));
    expect(new Set(drawn.map(key))).toEqual(new Set(expected.map(key)));
  });

  it("prints every node and edge in mermaid, dot and svg", async () => {
    const { graph } = await graphOf(example);
    const mermaid = renderGraph(graph, "mermaid");
    const dot = renderGraph(graph, "dot");
    const svg = renderGraph(graph, "svg");
    expect(mermaid.startsWith("flowchart LR\n")).toBe(true);
    expect(dot.startsWith("digraph agents {\n")).toBe(true);
    expect(svg.startsWith("<svg ")).toBe(true);
    for (const provider of graph.providers) {
      expect(mermaid).toContain(`[${JSON.stringify(provider)}]`);
      expect(dot).toContain(`subgraph "cluster_${provider}"`);
      expect(svg).toContain(`data-provider="${provider}"`);
    }
    const dq = (s: string) => JSON.stringify(s);
    const attr = (s: string) => s.replace(/"/g, "&quot;");
    const mermaidIds = new Map(graph.nodes.map((n, i) => [n.id, `n${i}`]));
    for (const node of graph.nodes) {
      expect(mermaid).toContain(`${mermaidIds.get(node.id)}[${dq(nodeLabel(node))}]`);
      expect(dot).toContain(`${dq(node.id)} [label=${dq(nodeLabel(node))}];`);
      expect(svg).toContain(`data-address="${attr(node.id)}"`);
    }
    for (const edge of graph.edges) {
      expect(mermaid).toContain(
        `${mermaidIds.get(edge.from)} -->|${dq(edge.role)}| ${mermaidIds.get(edge.to)}`,
      );
      expect(dot).toContain(`${dq(edge.from)} -> ${dq(edge.to)} [label=${dq(edge.role)}];`);
      expect(svg).toContain(`data-from="${attr(edge.from)}" data-to="${attr(edge.to)}"`);
    }
    expect(svg.match(/<g class="node"/g)?.length ?? 0).toBe(graph.nodes.length);
    expect(svg.match(/<g class="edge"/g)?.length ?? 0).toBe(graph.edges.length);
  });
});

/** The layout's boxes and lines in the shape the geometry rules read. */
function drawn(layout: ReturnType<typeof layoutGraph>): DrawnGraph {
  return {
    nodes: layout.nodes.map(({ node, x, y, width, height }) => ({
      id: node.id,
      box: { x, y, width, height },
    })),
    edges: layout.edges.map((e) => ({ from: e.from, to: e.to, label: e.labelBox, points: e.points })),
  };
}

describe("the SVG layout", () => {
  it.each(examples)(
    "examples/%s: no edge label overlaps another label, a foreign node or its own line; every line is orthogonal",
    async (example) => {
      const { graph } = await graphOf(example);
      const layout = layoutGraph(graph);
      expect(layout.edges.length).toBe(graph.edges.length);
      expect(labelOverlaps(drawn(layout))).toEqual([]);
      for (const edge of layout.edges)
        for (let i = 1; i < edge.points.length; i++) {
          const [a, b] = [edge.points[i - 1]!, edge.points[i]!];
          expect(a.x === b.x || a.y === b.y, `${edge.from} -> ${edge.to} segment ${i}`).toBe(true);
        }
    },
  );

  it("keeps the rule on a lane of 160 resources, laid out by the ranker for large lanes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "graph-layout-"));
    try {
      const file = join(dir, "agents.yaml");
      writeFileSync(file, playgroundConfig("providers:\n  provider_c:\n    api_key: sim-key", 160));
      const graph = projectGraph(await loadConfig(file, { env: {} }));
      expect(graph?.nodes.length).toBe(160);
      expect(labelOverlaps(drawn(layoutGraph(graph!)))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("places every node inside its provider's box and inside the picture", async () => {
    const { graph } = await graphOf("multi-provider");
    const layout = layoutGraph(graph);
    for (const { node, x, y, width, height } of layout.nodes) {
      const group = layout.groups.find((g) => g.provider === node.provider);
      expect(group).toBeDefined();
      if (!group) continue;
      expect(x).toBeGreaterThanOrEqual(group.x);
      expect(y).toBeGreaterThanOrEqual(group.y);
      expect(x + width).toBeLessThanOrEqual(group.x + group.width);
      expect(y + height).toBeLessThanOrEqual(group.y + group.height);
      expect(x + width).toBeLessThanOrEqual(layout.width);
      expect(y + height).toBeLessThanOrEqual(layout.height);
    }
  });
});
