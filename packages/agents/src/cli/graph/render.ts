// The graph as text: Mermaid and Graphviz DOT source, and SVG laid out in-process by dagre (a
// layered layout, clusters for providers), so no external program is needed. The layout and the
// SVG are also bundled into the playground's page (web/playground.js), which lays the graph out
// again when groups collapse or a plan adds ghosts: this file imports nothing of the loader.
import dagre from "@dagrejs/dagre";
import { type GraphNode, nodeLabel, type ProjectGraph } from "./types.js";

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

export interface Point {
  x: number;
  y: number;
}

export interface LaidOutEdge {
  from: string;
  to: string;
  role: string;
  /** The line, orthogonal: horizontal runs through the columns, vertical ones between them. */
  points: Point[];
  /** Where the label sits: above its line, in the room the layout kept for it. */
  labelBox: Box;
}

export interface LaidOutGraph {
  width: number;
  height: number;
  groups: (Box & { provider: string })[];
  nodes: (Box & { node: GraphNode })[];
  edges: LaidOutEdge[];
}

const FONT = 13;
const LABEL_FONT = 11;
/** A width that holds the text in a sans-serif font: no font metrics in Node (nor before paint). */
const textWidth = (text: string, size = FONT) => Math.ceil(text.length * size * 0.62);
const MARGIN = 16;
const NODE_HEIGHT = 34;
/** Left of the label: the kind's badge; right of it: the plan action's mark. */
const BADGE = 22;
const MARK = 16;
const LABEL_HEIGHT = LABEL_FONT + 6;
/** The room kept for an edge label: the label's band, a gap, and the band its line runs in. */
const LABEL_ROOM = 2 * LABEL_HEIGHT + 4;

const key = (x: number) => Math.round(x * 10);

/**
 * One provider's lane, from (0, 0). dagre ranks the
 * nodes left to right and keeps a box for each edge label as if it were a node, so no label
 * overlaps a node or another label; the edge then runs along the lower half of that box and its
 * label sits in the upper half, and every bend is put in the gap between two columns, where no
 * node or label is.
 */
function laneLayout(graph: Omit<ProjectGraph, "providers">): Omit<LaidOutGraph, "groups"> {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  // network-simplex ranks more compactly; longest-path is several times faster on large lanes.
  const ranker = graph.nodes.length > LARGE ? "longest-path" : "network-simplex";
  g.setGraph({ rankdir: "LR", nodesep: 14, ranksep: 48, marginx: 12, marginy: 8, ranker });
  g.setDefaultEdgeLabel(() => ({}));
  for (const node of graph.nodes)
    g.setNode(node.id, { width: textWidth(nodeLabel(node)) + BADGE + MARK + 20, height: NODE_HEIGHT });
  const labelWidth = (role: string) => textWidth(role, LABEL_FONT) + 8;
  graph.edges.forEach((edge, i) => {
    g.setEdge(
      edge.from,
      edge.to,
      { width: labelWidth(edge.role), height: LABEL_ROOM, labelpos: "c" },
      `e${i}`,
    );
  });
  dagre.layout(g);
  const box = (id: string): Box => {
    const n = g.node(id) as { x: number; y: number; width: number; height: number };
    return { x: n.x - n.width / 2, y: n.y - n.height / 2, width: n.width, height: n.height };
  };
  const size = g.graph() as { width?: number; height?: number };
  const nodes = graph.nodes.map((node) => ({ node, ...box(node.id) }));
  const byId = new Map(nodes.map((n) => [n.node.id, n] as const));
  const raw = graph.edges.map((edge, i) => {
    const e = g.edge({ v: edge.from, w: edge.to, name: `e${i}` }) as {
      points: Point[];
      x: number;
      y: number;
    };
    return { edge, e, width: labelWidth(edge.role) };
  });

  // Columns: every node, label box and bend dagre made in one rank shares its centre x.
  const half = new Map<number, number>();
  const column = (x: number, w: number) => half.set(key(x), Math.max(half.get(key(x)) ?? 0, w / 2));
  for (const n of nodes) column(n.x + n.width / 2, n.width);
  for (const { e, width } of raw) {
    column(e.x, width);
    for (const p of e.points.slice(1, -1)) column(p.x, 0);
  }

  // Each edge as waypoints (each with the centre of its column), then bends between columns.
  type Way = Point & { cx: number };
  const routes = raw.map(({ edge, e, width }) => {
    const from = byId.get(edge.from) as Box & { node: GraphNode };
    const to = byId.get(edge.to) as Box & { node: GraphNode };
    const line = e.y + LABEL_ROOM / 2 - LABEL_HEIGHT / 2;
    const ways: Way[] = [
      { x: from.x + from.width, y: from.y + from.height / 2, cx: from.x + from.width / 2 },
    ];
    for (const p of e.points.slice(1, -1)) {
      if (Math.abs(p.x - e.x) < 0.5 && Math.abs(p.y - e.y) < 0.5)
        ways.push({ x: e.x - width / 2, y: line, cx: e.x }, { x: e.x + width / 2, y: line, cx: e.x });
      else ways.push({ x: p.x, y: p.y, cx: p.x });
    }
    ways.push({ x: to.x, y: to.y + to.height / 2, cx: to.x + to.width / 2 });
    const labelBox = { x: e.x - width / 2, y: e.y - LABEL_ROOM / 2, width, height: LABEL_HEIGHT };
    return { edge, ways, labelBox };
  });
  // Vertical runs that share a gap are spread across it, so two lines never run on top of each other.
  const gapOf = (a: Way, b: Way) => {
    const left = a.cx + (half.get(key(a.cx)) ?? 0);
    const right = b.cx - (half.get(key(b.cx)) ?? 0);
    return { left, right, id: `${key(left)}:${key(right)}` };
  };
  const users = new Map<string, number>();
  for (const { ways } of routes)
    for (let i = 1; i < ways.length; i++) {
      const [a, b] = [ways[i - 1] as Way, ways[i] as Way];
      if (Math.abs(a.y - b.y) >= 0.5) {
        const id = gapOf(a, b).id;
        users.set(id, (users.get(id) ?? 0) + 1);
      }
    }
  const taken = new Map<string, number>();
  const edges = routes.map(({ edge, ways, labelBox }) => {
    const points: Point[] = [{ x: ways[0]?.x ?? 0, y: ways[0]?.y ?? 0 }];
    for (let i = 1; i < ways.length; i++) {
      const [a, b] = [ways[i - 1] as Way, ways[i] as Way];
      if (Math.abs(a.y - b.y) >= 0.5) {
        const gap = gapOf(a, b);
        const slot = (taken.get(gap.id) ?? 0) + 1;
        taken.set(gap.id, slot);
        const x = gap.left + ((gap.right - gap.left) * slot) / ((users.get(gap.id) ?? 1) + 1);
        points.push({ x, y: a.y }, { x, y: b.y });
      }
      points.push({ x: b.x, y: b.y });
    }
    return { from: edge.from, to: edge.to, role: edge.role, points, labelBox };
  });
  return { width: Math.ceil(size.width ?? 0), height: Math.ceil(size.height ?? 0), nodes, edges };
}

/** A lane's title band above its nodes. */
const LANE_TITLE = 26;
/** Lanes with more nodes than this are ranked by the faster ranker. */
const LARGE = 150;

/**
 * Positions for every provider lane, node and edge (boxes by their top-left corner). Each
 * provider is laid out on its own (a reference never crosses providers) and the lanes are
 * stacked top to bottom, each as wide as the widest.
 */
export function layoutGraph(graph: ProjectGraph): LaidOutGraph {
  const lanes = graph.providers.map((provider) => {
    const nodes = graph.nodes.filter((n) => n.provider === provider);
    const ids = new Set(nodes.map((n) => n.id));
    return {
      provider,
      ...laneLayout({ nodes, edges: graph.edges.filter((e) => ids.has(e.from) && ids.has(e.to)) }),
    };
  });
  const width = Math.max(200, ...lanes.map((l) => l.width)) + 2 * MARGIN;
  const out: LaidOutGraph = { width, height: 0, groups: [], nodes: [], edges: [] };
  let top = MARGIN;
  for (const lane of lanes) {
    const dx = MARGIN;
    const dy = top + LANE_TITLE;
    const move = <T extends Point>(p: T): T => ({ ...p, x: p.x + dx, y: p.y + dy });
    out.groups.push({
      provider: lane.provider,
      x: MARGIN / 2,
      y: top,
      width: width - MARGIN,
      height: lane.height + LANE_TITLE,
    });
    for (const n of lane.nodes) out.nodes.push(move(n));
    for (const e of lane.edges)
      out.edges.push({ ...e, points: e.points.map(move), labelBox: move(e.labelBox) });
    top += lane.height + LANE_TITLE + MARGIN;
  }
  out.height = top;
  // In the order the graph lists them, as before (the SVG draws nodes over edges).
  const order = new Map(graph.nodes.map((n, i) => [n.id, i]));
  out.nodes.sort((a, b) => (order.get(a.node.id) ?? 0) - (order.get(b.node.id) ?? 0));
  return out;
}

const esc = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const n = (value: number) => String(Math.round(value * 10) / 10);

/** Each kind's colour and the letter on its badge (its outline is shape()'s). */
export const KIND_STYLE: Record<string, { colour: string; letter: string }> = {
  agents: { colour: "#1f5fbf", letter: "A" },
  environments: { colour: "#2e7d32", letter: "E" },
  tunnels: { colour: "#00796b", letter: "T" },
  vaults: { colour: "#8e24aa", letter: "V" },
  memory_stores: { colour: "#c25e00", letter: "M" },
  skills: { colour: "#ad1457", letter: "S" },
  files: { colour: "#5d4037", letter: "F" },
  identities: { colour: "#455a64", letter: "I" },
  channels: { colour: "#6a1b9a", letter: "C" },
  deployments: { colour: "#b71c1c", letter: "D" },
};
const OTHER_KIND = { colour: "#555555", letter: "?" };

/** Each kind's outline: agents round, vaults with cut corners, skills pointed, files folded, ... */
function shape(kind: string, b: Box): string {
  const { x, y, width: w, height: h } = b;
  const r = (v: number) => n(v);
  const poly = (pts: [number, number][]) => `M${pts.map(([px, py]) => `${r(px)} ${r(py)}`).join("L")}Z`;
  const c = 8;
  switch (kind) {
    case "agents":
      return `M${r(x + h / 2)} ${r(y)}H${r(x + w - h / 2)}A${r(h / 2)} ${r(h / 2)} 0 0 1 ${r(x + w - h / 2)} ${r(y + h)}H${r(x + h / 2)}A${r(h / 2)} ${r(h / 2)} 0 0 1 ${r(x + h / 2)} ${r(y)}Z`;
    case "vaults":
      return poly([
        [x + c, y],
        [x + w - c, y],
        [x + w, y + c],
        [x + w, y + h - c],
        [x + w - c, y + h],
        [x + c, y + h],
        [x, y + h - c],
        [x, y + c],
      ]);
    case "skills":
      return poly([
        [x + c, y],
        [x + w - c, y],
        [x + w, y + h / 2],
        [x + w - c, y + h],
        [x + c, y + h],
        [x, y + h / 2],
      ]);
    case "tunnels":
      return poly([
        [x + c, y],
        [x + w, y],
        [x + w - c, y + h],
        [x, y + h],
      ]);
    case "files":
      return poly([
        [x, y],
        [x + w - 10, y],
        [x + w, y + 10],
        [x + w, y + h],
        [x, y + h],
      ]);
    case "channels":
      return poly([
        [x, y],
        [x + w - c, y],
        [x + w, y + h / 2],
        [x + w - c, y + h],
        [x, y + h],
      ]);
    case "deployments":
      return poly([
        [x, y],
        [x + w, y],
        [x + w, y + h],
        [x, y + h],
        [x + c, y + h / 2],
      ]);
    case "memory_stores":
      return `M${r(x)} ${r(y + 5)}A${r(w / 2)} 5 0 0 1 ${r(x + w)} ${r(y + 5)}V${r(y + h - 5)}A${r(w / 2)} 5 0 0 1 ${r(x)} ${r(y + h - 5)}Z`;
    case "identities":
      return `M${r(x + 10)} ${r(y)}H${r(x + w - 10)}Q${r(x + w)} ${r(y)} ${r(x + w)} ${r(y + 10)}V${r(y + h - 10)}Q${r(x + w)} ${r(y + h)} ${r(x + w - 10)} ${r(y + h)}H${r(x + 10)}Q${r(x)} ${r(y + h)} ${r(x)} ${r(y + h - 10)}V${r(y + 10)}Q${r(x)} ${r(y)} ${r(x + 10)} ${r(y)}Z`;
    default:
      return poly([
        [x, y],
        [x + w, y],
        [x + w, y + h],
        [x, y + h],
      ]);
  }
}

/**
 * The SVG document. Presentation attributes and classes only (no style attributes or elements),
 * so the playground's strict CSP accepts it inline and its stylesheet can restyle it (dark theme,
 * plan actions); `data-address`, `data-kind` and `data-from`/`data-to` name what each shape
 * stands for. Nodes are keyboard-focusable buttons named by their label and address.
 */
export function svg(layout: LaidOutGraph): string {
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${layout.width}" height="${layout.height}" viewBox="0 0 ${layout.width} ${layout.height}" font-family="sans-serif" font-size="${FONT}">`,
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path class="arrow" d="M0 0L10 5L0 10z" fill="#555"/></marker></defs>',
  ];
  for (const group of layout.groups)
    out.push(
      `<g class="group" data-provider="${esc(group.provider)}"><rect x="${n(group.x)}" y="${n(group.y)}" width="${n(group.width)}" height="${n(group.height)}" rx="8" fill="#f4f6fa" stroke="#9aa5b8"/><text x="${n(group.x + 10)}" y="${n(group.y + 18)}" font-weight="bold" fill="#223">${esc(group.provider)}</text></g>`,
    );
  for (const edge of layout.edges) {
    const d = edge.points.map((p, i) => `${i === 0 ? "M" : "L"}${n(p.x)} ${n(p.y)}`).join("");
    const b = edge.labelBox;
    out.push(
      `<g class="edge" data-from="${esc(edge.from)}" data-to="${esc(edge.to)}" data-role="${esc(edge.role)}"><path d="${d}" fill="none" stroke="#555" marker-end="url(#arrow)"/><rect class="label" x="${n(b.x)}" y="${n(b.y)}" width="${n(b.width)}" height="${n(b.height)}" rx="3" fill="#ffffff" stroke="#c8ced8"/><text x="${n(b.x + b.width / 2)}" y="${n(b.y + b.height - 5)}" text-anchor="middle" fill="#333" font-size="${LABEL_FONT}">${esc(edge.role)}</text></g>`,
    );
  }
  for (const { node, ...b } of layout.nodes) {
    const style = KIND_STYLE[node.kind] ?? OTHER_KIND;
    const label = nodeLabel(node);
    const cy = b.y + b.height / 2;
    const bx = b.x + (node.kind === "agents" ? 14 : 8) + 8;
    const flags = `${node.external ? " data-external" : ""}${node.ghost ? " data-ghost" : ""}${node.count !== undefined ? ` data-count="${node.count}"` : ""}`;
    // The badge and the plan's mark are drawn over the node but outside its group, so the node's
    // accessible name is its label, as seen, and a click on them still reaches the node.
    out.push(
      `<g class="node" data-address="${esc(node.id)}" data-kind="${esc(node.kind)}"${flags} tabindex="0" role="button" aria-label="${esc(`${label} (${node.id})`)}"><path class="shape" d="${shape(node.kind, b)}" fill="#fff" stroke="${style.colour}" stroke-width="2"${node.external || node.ghost ? ' stroke-dasharray="4 3"' : ""}/><text class="name" x="${n(bx + 12)}" y="${n(cy + 4.5)}" fill="#111">${esc(label)}</text></g>`,
      `<g class="deco" data-for="${esc(node.id)}"${flags} aria-hidden="true" pointer-events="none"><circle class="badge" cx="${n(bx)}" cy="${n(cy)}" r="8" fill="${style.colour}"/><text class="badge-letter" x="${n(bx)}" y="${n(cy + 4)}" text-anchor="middle" font-size="11" font-weight="bold" fill="#fff">${style.letter}</text><text class="mark" x="${n(b.x + b.width - 12)}" y="${n(cy + 5)}" text-anchor="middle" font-weight="bold" fill="#111"></text></g>`,
    );
  }
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}
