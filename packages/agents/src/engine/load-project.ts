// Bridges the config loader to the engine: loads, validates and expands agents.yaml, and turns
// the resource graph into the engine's desired resources. Any config error stops here.

import { ConfigError } from "../config/diagnostics.js";
import { formatDiagnostic } from "../config/format.js";
import { loadConfig } from "../config/index.js";
import type { LifecycleDecl } from "../config/schema/index.js";
import { hasBlocks, type StateBlocks } from "../plan/blocks.js";
import type { DesiredResource, LifecycleRules } from "../plan/types.js";
import { ALL_ADAPTERS } from "../providers/catalog.js";
import type { Kind, ProviderAdapter, ProviderName, Spec } from "../providers/types.js";
import { type LoadedProject, projectName, projectSource } from "./project.js";
import { stateSettingsOf } from "./state-config.js";

export interface LoadOptions {
  file: string;
  provider?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * The adapters whose `derive` supplies facts from outside a declaration; pass the list you give
   * the engine (`EngineOptions.adapters`). Default: every adapter in the catalog.
   */
  adapters?: readonly ProviderAdapter[];
}

/**
 * Facts an adapter needs from outside one declaration (ProviderAdapter.derive, e.g. provider_b's
 * API domain and default identity) are merged under `derived`, so plans show and compare them.
 */
function withDerived(
  adapters: readonly ProviderAdapter[],
  spec: Spec,
  config: Spec,
  provider: string,
  kind: Kind,
  name: string,
): Spec {
  const derived = adapters.find((a) => a.name === provider)?.derive?.(config, kind, name);
  return derived ? { ...spec, derived } : spec;
}

function lifecycleRules(declared: LifecycleDecl): LifecycleRules {
  return {
    ...(declared.prevent_destroy !== undefined ? { preventDestroy: declared.prevent_destroy } : {}),
    ...(declared.ignore_changes !== undefined ? { ignoreChanges: declared.ignore_changes } : {}),
    ...(declared.create_before_destroy !== undefined
      ? { createBeforeDestroy: declared.create_before_destroy }
      : {}),
  };
}

export async function loadProject(options: LoadOptions): Promise<LoadedProject> {
  const env = options.env ?? process.env;
  const adapters = options.adapters ?? ALL_ADAPTERS;
  const result = await loadConfig(options.file, { env });
  const errors = result.diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0 || !result.config || !result.graph) {
    const text = errors.map((d) => formatDiagnostic(d, result.source?.lineText(d.line))).join("\n\n");
    throw new ConfigError(
      `${text}\n\n${errors.length} configuration error(s); fix them and run again (agents validate)`,
      errors,
    );
  }
  const config = result.config as unknown as Spec;
  const desired: DesiredResource[] = result.graph.nodes.map((node) => ({
    address: node.address,
    kind: node.kind as Kind,
    name: node.name,
    provider: node.provider as ProviderName,
    spec: withDerived(adapters, node.spec as Spec, config, node.provider, node.kind as Kind, node.name),
    ...(node.external ? { external: { id: node.external.id, field: node.external.field } } : {}),
    dependsOn: node.dependsOn,
    ...(node.lifecycle ? { lifecycle: lifecycleRules(node.lifecycle) } : {}),
  }));
  const project = projectName(result.dir, env);
  const blocks: StateBlocks = {
    moved: result.config.moved ?? [],
    imports: result.config.import ?? [],
    removed: result.config.removed ?? [],
  };
  const state = stateSettingsOf(result.config.state, result.dir, project, env);
  return {
    configPath: result.file,
    configDir: result.dir,
    project,
    projectFrom: projectSource(env),
    state: state.settings,
    ...(hasBlocks(blocks) ? { stateBlocks: blocks } : {}),
    desired,
    blocks: (result.config.providers ?? {}) as LoadedProject["blocks"],
    secrets: [...result.secretValues, ...state.secrets],
    warnings: result.diagnostics
      .filter((d) => d.severity !== "error")
      .map((d) => formatDiagnostic(d, result.source?.lineText(d.line))),
  };
}
