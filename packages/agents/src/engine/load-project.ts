// Bridges the config loader to the engine: loads, validates and expands agents.yaml, and turns
// the resource graph into the engine's desired resources. Any config error stops here.
import { loadConfig } from "../config/index.js";
import { type LoadedProject, projectName } from "../engine/project.js";
import { stateSettingsOf } from "../engine/state-config.js";
import type { DesiredResource } from "../plan/types.js";
import { ALL_ADAPTERS } from "../providers/adapters.js";
import type { Kind, ProviderName, Spec } from "../providers/types.js";
import { CliError } from "./errors.js";
import { formatDiagnostic } from "./output.js";

export interface LoadOptions {
  file: string;
  provider?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Facts an adapter needs from outside one declaration (ProviderAdapter.derive, e.g. provider_b's
 * API domain and default identity) are merged under `derived`, so plans show and compare them.
 */
function withDerived(spec: Spec, config: Spec, provider: string, kind: Kind, name: string): Spec {
  const derived = ALL_ADAPTERS.find((a) => a.name === provider)?.derive?.(config, kind, name);
  return derived ? { ...spec, derived } : spec;
}

export async function loadProject(options: LoadOptions): Promise<LoadedProject> {
  const env = options.env ?? process.env;
  const result = await loadConfig(options.file, { env });
  const errors = result.diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0 || !result.config || !result.graph) {
    const text = errors.map((d) => formatDiagnostic(d, result.source?.lineText(d.line))).join("\n\n");
    throw new CliError(
      `${text}\n\n${errors.length} configuration error(s); fix them and run again (agents validate)`,
    );
  }
  const config = result.config as unknown as Spec;
  const desired: DesiredResource[] = result.graph.nodes.map((node) => ({
    address: node.address,
    kind: node.kind as Kind,
    name: node.name,
    provider: node.provider as ProviderName,
    spec: withDerived(node.spec as Spec, config, node.provider, node.kind as Kind, node.name),
    ...(node.external ? { external: { id: node.external.id, field: node.external.field } } : {}),
    dependsOn: node.dependsOn,
  }));
  const project = projectName(result.dir, env);
  const state = stateSettingsOf(result.config.state, result.dir, project, env);
  return {
    configPath: result.file,
    configDir: result.dir,
    project,
    state: state.settings,
    desired,
    blocks: (result.config.providers ?? {}) as LoadedProject["blocks"],
    secrets: [...result.secretValues, ...state.secrets],
    warnings: result.diagnostics
      .filter((d) => d.severity !== "error")
      .map((d) => formatDiagnostic(d, result.source?.lineText(d.line))),
  };
}
