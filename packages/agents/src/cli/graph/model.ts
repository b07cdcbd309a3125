// The project as a picture's data: one node per declared resource on one provider, one edge per
// reference (agent → environment, vault, skills, memory stores, files, tunnel; coordinator →
// roster member; deployment → agent, ...), grouped by provider. Built from the configuration's
// own expansion (config/graph.ts), so it shows exactly the dependencies plan and apply order by.
import { type LoadResult, referencesOf } from "../../index.js";
import type { GraphEdge, GraphNode, ProjectGraph } from "./types.js";

export type { GraphEdge, GraphNode, ProjectGraph } from "./types.js";
export { nodeLabel } from "./types.js";

/** The graph of a loaded configuration; undefined when the file did not get as far as a graph. */
export function projectGraph(result: LoadResult): ProjectGraph | undefined {
  const graph = result.graph;
  if (!graph) return undefined;
  const document = (result.config ?? result.document ?? {}) as Parameters<typeof referencesOf>[2];
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const providers: string[] = [];
  for (const node of graph.nodes) {
    if (!providers.includes(node.provider)) providers.push(node.provider);
    const pos = node.pos;
    nodes.push({
      id: node.address,
      kind: node.kind,
      name: node.name,
      provider: node.provider,
      line: pos.line,
      col: pos.col,
      external: node.external !== undefined,
    });
    const refs = referencesOf(node.kind, node.spec, document);
    for (const target of node.dependsOn) {
      const to = graph.byAddress.get(target);
      const ref = refs.find((r) => r.kind === to?.kind && r.name === to?.name);
      // The one edge config/graph.ts adds beyond the declared references: a Forward agent's identity.
      edges.push({ from: node.address, to: target, role: ref?.role ?? "identity" });
    }
  }
  return { providers, nodes, edges };
}
