import { formatAddress } from "../model/address.js";
import { dependencyOrder, type Edges } from "../model/graph.js";
import { KINDS, type Kind } from "../model/kinds.js";
import { capabilitiesOf } from "../providers/specs.js";
import type { SourcePos } from "./diagnostics.js";
import { referencesOf } from "./references.js";
import type { Config, LifecycleDecl } from "./schema/index.js";
import { deliveryOf, targetsOf } from "./targets.js";

export interface ExternalRef {
  field: "environment_id" | "identity_id" | "tunnel_id";
  id: string;
}

/** One declared resource on one provider. */
export interface ResourceNode {
  address: string;
  kind: Kind;
  name: string;
  provider: string;
  /** The declaration as written (after interpolation and path resolution). */
  spec: unknown;
  /** Present when the resource already exists remotely and is only referenced. */
  external?: ExternalRef;
  /** Addresses of the nodes this one needs first. */
  dependsOn: string[];
  /** The declaration's `lifecycle:` block, which is never part of `spec` (nothing sends it). */
  lifecycle?: LifecycleDecl;
  readonly pos: SourcePos;
}

export interface ResourceGraph {
  nodes: ResourceNode[];
  byAddress: Map<string, ResourceNode>;
}

interface ExpandOptions {
  /** Locate a declaration; defaults to line 1, col 1 of `file`. */
  pos?: (path: (string | number)[]) => SourcePos;
  file?: string;
  /** Keep only nodes of this provider (`agents validate --provider`). */
  provider?: string;
}

function externalOf(kind: Kind, spec: Record<string, unknown>): ExternalRef | undefined {
  const field =
    kind === "environments"
      ? "environment_id"
      : kind === "identities"
        ? "identity_id"
        : kind === "tunnels"
          ? "tunnel_id"
          : undefined;
  const id = field ? spec[field] : undefined;
  return field && typeof id === "string" ? { field, id } : undefined;
}

/** Expand the declarations into one node per (kind, name, provider) with reference edges. */
export function expand(config: Config, options: ExpandOptions = {}): ResourceGraph {
  const locate = options.pos ?? (() => ({ file: options.file ?? "agents.yaml", line: 1, col: 1 }));
  const nodes: ResourceNode[] = [];
  const byAddress = new Map<string, ResourceNode>();
  for (const kind of KINDS) {
    const declarations = (config[kind] ?? {}) as Record<string, Record<string, unknown>>;
    for (const [name, declared] of Object.entries(declarations)) {
      // Copied only when there is a lifecycle block to leave out (most declarations have none).
      const { lifecycle, ...rest } = declared.lifecycle === undefined ? { lifecycle: undefined } : declared;
      const spec = lifecycle === undefined ? declared : rest;
      for (const provider of targetsOf(spec.provider as string | undefined, config, kind)) {
        if (options.provider !== undefined && provider !== options.provider) continue;
        const node: ResourceNode = {
          address: formatAddress({ provider, kind, name }),
          kind,
          name,
          provider,
          spec,
          dependsOn: [],
          // Looked up when something asks: a position may mean parsing the file a second time.
          get pos() {
            return locate([kind, name]);
          },
        };
        const external = externalOf(kind, spec);
        if (external) node.external = external;
        if (lifecycle) node.lifecycle = lifecycle as LifecycleDecl;
        nodes.push(node);
        byAddress.set(node.address, node);
      }
    }
  }
  for (const node of nodes) {
    const deps = new Set<string>();
    for (const ref of referencesOf(node.kind, node.spec, config)) {
      const target = formatAddress({ provider: node.provider, kind: ref.kind, name: ref.name });
      if (byAddress.has(target) && target !== node.address) deps.add(target);
    }
    // A Forward agent is bound to the default identity (Templates, default memory store).
    const caps = capabilitiesOf(node.provider);
    const identity = config.defaults?.identity;
    if (node.kind === "agents" && caps && identity !== undefined) {
      if (deliveryOf(node.spec as never, caps) === "forward") {
        const target = formatAddress({ provider: node.provider, kind: "identities", name: identity });
        if (byAddress.has(target)) deps.add(target);
      }
    }
    node.dependsOn = [...deps];
  }
  return { nodes, byAddress };
}

const NODE_EDGES: Edges<ResourceNode> = { id: (node) => node.address, deps: (node) => node.dependsOn };

/**
 * Nodes ordered so that every node comes after the nodes it depends on (stable in declaration
 * order). Nodes caught in a cycle, or waiting on one, are returned in `cycle`, not dropped.
 */
export function topologicalOrder(graph: ResourceGraph): { order: ResourceNode[]; cycle: ResourceNode[] } {
  const { order, cyclic } = dependencyOrder(graph.nodes, NODE_EDGES);
  return { order, cycle: cyclic };
}
