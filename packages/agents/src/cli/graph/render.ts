// The graph as text: Mermaid and Graphviz DOT source, and SVG laid out in-process by dagre (a
// layered layout, clusters for providers), so no external program is needed.
import dagre from "@dagrejs/dagre";
import { type GraphNode, nodeLabel, type ProjectGraph } from "./model.js";

export const GRAPH_FORMATS = ["mermaid", "dot", "svg"] as const;
export type GraphFormat = (typeof GRAPH_FORMATS)[number];

export function renderGraph(graph: ProjectGraph, format: GraphFormat): string {
  if (format === "mermaid") return mermaid(graph);
  if (format === "dot") return dot(graph);
  return svg(layoutGraph(graph));
}

/** Mermaid ids are plain words: nodes are numbered in graph order, providers named by index. */
function mermaid(graph: ProjectGraph): string {
  const ids = new Map(graph.nodes.map((node, i) => [node.id, `n${i}`]));
  const text = (value: string) => `"${value.replace(/"/g, "#quot;")}"`;
  const lines = ["flowchart LR"];
  graph.providers.forEach((provider, p) => {
    lines.push(`  subgraph p${p}[${text(provider)}]`);
    for (const node of graph.nodes.filter((n) => n.provider === provider))
      lines.push(`    ${ids.get(node.id)}[${text(nodeLabel(node))}]`);
    lines.push("  end");
  });
  for (const edge of graph.edges)
    lines.push(`  ${ids.get(edge.from)} -->|${text(edge.role)}| ${ids.get(edge.to)}`);
  return `${lines.join("\n")}\n`;
}

function dot(graph: ProjectGraph): string {
  const q = (value: string) => `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  const lines = ["digraph agents {", "  rankdir=LR;", "  node [shape=box];"];
  for (const provider of graph.providers) {
    lines.push(`  subgraph ${q(`cluster_${provider}`)} {`, `    label=${q(provider)};`);
    for (const node of graph.nodes.filter((n) => n.provider === provider))
      lines.push(`    ${q(node.id)} [label=${q(nodeLabel(node))}];`);
    lines.push("  }");
  }
  for (const edge of graph.edges) lines.push(`  ${q(edge.from)} -> ${q(edge.to)} [label=${q(edge.role)}];`);
  lines.push("}");
  return `${lines.join("\n")}\n`;
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface LaidOutGraph {
  width: number;
  height: number;
  groups: (Box & { provider: string })[];
  nodes: (Box & { node: GraphNode })[];
  edges: {
    from: string;
    to: string;
    role: string;
    points: { x: number; y: number }[];
    label: { x: number; y: number };
  }[];
}

const FONT = 13;
/** A width that holds the text in a sans-serif font at FONT px: no font metrics in Node. */
const textWidth = (text: string) => Math.ceil(text.length * FONT * 0.62);
const MARGIN = 16;

/** Positions for every group, node and edge (boxes by their top-left corner). */
export function layoutGraph(graph: ProjectGraph): LaidOutGraph {
  const g = new dagre.graphlib.Graph({ compound: true, multigraph: true });
  g.setGraph({ rankdir: "LR", nodesep: 18, ranksep: 60, marginx: MARGIN, marginy: MARGIN });
  g.setDefaultEdgeLabel(() => ({}));
  for (const provider of graph.providers) g.setNode(`group:${provider}`, { label: provider, paddingTop: 28 });
  for (const node of graph.nodes) {
    g.setNode(node.id, { width: textWidth(nodeLabel(node)) + 24, height: 32 });
    g.setParent(node.id, `group:${node.provider}`);
  }
  graph.edges.forEach((edge, i) => {
    g.setEdge(edge.from, edge.to, { width: textWidth(edge.role), height: FONT + 4, labelpos: "c" }, `e${i}`);
  });
  dagre.layout(g);
  const box = (id: string): Box => {
    const n = g.node(id) as { x: number; y: number; width: number; height: number };
    return { x: n.x - n.width / 2, y: n.y - n.height / 2, width: n.width, height: n.height };
  };
  const size = g.graph() as { width?: number; height?: number };
  return {
    width: Math.ceil(size.width ?? 0),
    height: Math.ceil(size.height ?? 0),
    groups: graph.providers.map((provider) => ({ provider, ...box(`group:${provider}`) })),
    nodes: graph.nodes.map((node) => ({ node, ...box(node.id) })),
    edges: graph.edges.map((edge, i) => {
      const e = g.edge({ v: edge.from, w: edge.to, name: `e${i}` }) as {
        points: { x: number; y: number }[];
        x: number;
        y: number;
      };
      return { ...edge, points: e.points, label: { x: e.x, y: e.y } };
    }),
  };
}

const esc = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const n = (value: number) => String(Math.round(value * 10) / 10);

/**
 * The SVG document. Presentation attributes only (no style attributes or elements), so the
 * playground's strict CSP accepts it inline; `data-address` and `data-from`/`data-to` name what
 * each shape stands for.
 */
export function svg(layout: LaidOutGraph): string {
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${layout.width}" height="${layout.height}" viewBox="0 0 ${layout.width} ${layout.height}" font-family="sans-serif" font-size="${FONT}">`,
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" fill="#555"/></marker></defs>',
  ];
  for (const group of layout.groups)
    out.push(
      `<g class="group" data-provider="${esc(group.provider)}"><rect x="${n(group.x)}" y="${n(group.y)}" width="${n(group.width)}" height="${n(group.height)}" rx="8" fill="#f4f6fa" stroke="#9aa5b8"/><text x="${n(group.x + 10)}" y="${n(group.y + 18)}" font-weight="bold" fill="#334">${esc(group.provider)}</text></g>`,
    );
  for (const edge of layout.edges) {
    const d = edge.points.map((p, i) => `${i === 0 ? "M" : "L"}${n(p.x)} ${n(p.y)}`).join("");
    out.push(
      `<g class="edge" data-from="${esc(edge.from)}" data-to="${esc(edge.to)}"><path d="${d}" fill="none" stroke="#555" marker-end="url(#arrow)"/><text x="${n(edge.label.x)}" y="${n(edge.label.y + 4)}" text-anchor="middle" fill="#555" font-size="11">${esc(edge.role)}</text></g>`,
    );
  }
  for (const { node, ...b } of layout.nodes)
    out.push(
      `<g class="node" data-address="${esc(node.id)}" tabindex="0"><rect x="${n(b.x)}" y="${n(b.y)}" width="${n(b.width)}" height="${n(b.height)}" rx="4" fill="#fff" stroke="#333"${node.external ? ' stroke-dasharray="4 3"' : ""}/><text x="${n(b.x + b.width / 2)}" y="${n(b.y + b.height / 2 + 4)}" text-anchor="middle" fill="#111">${esc(nodeLabel(node))}</text></g>`,
    );
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}
