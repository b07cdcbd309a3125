// The graph's vocabulary, apart from the loader: the nodes, edges and labels that the CLI's
// renderers and the playground's page (which bundles this file for the browser) both draw.

export interface GraphNode {
  /** The resource address (`provider_c.agents["helper"]`), as plan output names it. */
  id: string;
  kind: string;
  name: string;
  provider: string;
  /** Where the declaration starts in agents.yaml. */
  line: number;
  col: number;
  /** Declared with an existing remote id (environment_id, ...): referenced, never created. */
  external: boolean;
  /** Drawn for a resource the plan deletes: in the state, no longer declared (the playground). */
  ghost?: boolean;
  /** A collapsed group standing for this many resources of one kind (the playground). */
  count?: number;
}

export interface GraphEdge {
  /** The resource that holds the reference. */
  from: string;
  /** The resource it names. */
  to: string;
  /** Why: "environment", "vault", "roster member", "agent", ... */
  role: string;
}

export interface ProjectGraph {
  /** Providers in declaration order, each a group of nodes. */
  providers: string[];
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** A node's label: its kind in the singular and its name. */
export function nodeLabel(node: Pick<GraphNode, "kind" | "name" | "count">): string {
  if (node.count !== undefined) return `${node.count} ${node.kind.replace(/_/g, " ")}`;
  return `${singular(node.kind)} ${node.name}`;
}

const SINGULAR: Record<string, string> = {
  memory_stores: "memory store",
  identities: "identity",
};

export function singular(kind: string): string {
  return SINGULAR[kind] ?? kind.replace(/_/g, " ").replace(/s$/, "");
}
