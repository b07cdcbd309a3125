// The picture's rule for edge labels, as data: no label box overlaps another label, a node that is
// not one of its edge's ends, or its own edge's line. Checked on the layout in Node
// (render.test.ts) and on the boxes Chromium measured (e2e/playground.test.ts).

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface DrawnEdge {
  from: string;
  to: string;
  label: Rect;
  points: { x: number; y: number }[];
}

export interface DrawnGraph {
  nodes: { id: string; box: Rect }[];
  edges: DrawnEdge[];
}

/** Boxes that share more than a hair (touching edges do not count). */
export function intersects(a: Rect, b: Rect, slack = 0.5): boolean {
  return (
    a.x + slack < b.x + b.width &&
    b.x + slack < a.x + a.width &&
    a.y + slack < b.y + b.height &&
    b.y + slack < a.y + a.height
  );
}

/** Whether the segment p→q passes through the inside of `r` (Liang–Barsky clipping). */
export function segmentCrosses(p: { x: number; y: number }, q: { x: number; y: number }, r: Rect): boolean {
  const inset = 0.5;
  const [x0, y0, x1, y1] = [r.x + inset, r.y + inset, r.x + r.width - inset, r.y + r.height - inset];
  const dx = q.x - p.x;
  const dy = q.y - p.y;
  let t0 = 0;
  let t1 = 1;
  for (const [pk, qk] of [
    [-dx, p.x - x0],
    [dx, x1 - p.x],
    [-dy, p.y - y0],
    [dy, y1 - p.y],
  ] as [number, number][]) {
    if (pk === 0) {
      if (qk < 0) return false;
    } else {
      const t = qk / pk;
      if (pk < 0) t0 = Math.max(t0, t);
      else t1 = Math.min(t1, t);
      if (t0 > t1) return false;
    }
  }
  return true;
}

/** Every broken rule, in words (empty when the picture keeps it). */
export function labelOverlaps(graph: DrawnGraph): string[] {
  const problems: string[] = [];
  const name = (e: DrawnEdge) => `label of ${e.from} -> ${e.to}`;
  graph.edges.forEach((edge, i) => {
    for (const other of graph.edges.slice(i + 1))
      if (intersects(edge.label, other.label)) problems.push(`${name(edge)} overlaps ${name(other)}`);
    for (const node of graph.nodes)
      if (node.id !== edge.from && node.id !== edge.to && intersects(edge.label, node.box))
        problems.push(`${name(edge)} overlaps node ${node.id}`);
    for (let k = 1; k < edge.points.length; k++)
      if (segmentCrosses(edge.points[k - 1]!, edge.points[k]!, edge.label))
        problems.push(`${name(edge)} is crossed by its own line`);
  });
  return problems;
}
