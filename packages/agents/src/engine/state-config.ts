// Which state a config file uses, for commands that need only the state (`state list|show|rm|mv|
// push|pull|migrate`, `force-unlock`): they must work even while a declaration elsewhere in the
// file is invalid, so only the `state:` block (and the variables it uses) has to be right.
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { isMap, isScalar } from "yaml";
import { type Diagnostic, loadConfig } from "../config/index.js";
import { stateSchema } from "../config/schema/index.js";
import type { StateBackend } from "../state/backend.js";
import {
  openBackend,
  resolveStateSettings,
  type StateBlock,
  type StateSettings,
  settingsSecrets,
} from "../state/settings.js";
import { StateError } from "../state/types.js";
import { projectName } from "./project.js";

export function stateSettingsOf(
  block: StateBlock | undefined,
  configDir: string,
  project: string,
  env: NodeJS.ProcessEnv,
): { settings: StateSettings; secrets: string[] } {
  const settings = resolveStateSettings(block, { configDir, project, env });
  return { settings, secrets: settingsSecrets(settings) };
}

/** Thrown with the config's own diagnostics when the `state:` block itself is wrong. */
class StateConfigError extends StateError {
  constructor(
    message: string,
    readonly diagnostics: Diagnostic[],
  ) {
    super(message);
  }
}

/** The state settings of `configFile`; a missing file means the defaults (file beside it, or AGENTS_STATE_URL). */
async function stateSettingsForConfig(
  configFile: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ settings: StateSettings; secrets: string[] }> {
  const file = resolve(configFile);
  const dir = dirname(file);
  const project = projectName(dir, env);
  if (!existsSync(file)) return stateSettingsOf(undefined, dir, project, env);
  const result = await loadConfig(file, { env });
  if (result.config) return stateSettingsOf(result.config.state, dir, project, env);
  const syntax = result.diagnostics.filter((d) => d.code === "AGENTS1000" || d.code === "AGENTS1005");
  if (syntax.length > 0) {
    throw new StateConfigError(
      `${file} cannot be parsed, so its state block cannot be read: ${syntax.map((d) => `${d.line}:${d.col} ${d.message}`).join("; ")}`,
      syntax,
    );
  }
  const root = result.source?.doc.contents;
  const pair = isMap(root) ? root.items.find((p) => isScalar(p.key) && p.key.value === "state") : undefined;
  if (!pair || !result.source) return stateSettingsOf(undefined, dir, project, env);
  // The block's own lines: an error there (schema, rule, unset variable) stops the command.
  const first = result.source.posAt((pair.key as { range?: number[] }).range?.[0] ?? 0).line;
  const last = result.source.posAt((pair.value as { range?: number[] } | null)?.range?.[2] ?? 0).line;
  const inBlock = result.diagnostics.filter(
    (d) => d.severity === "error" && (d.path?.[0] === "state" || (d.line >= first && d.line <= last)),
  );
  if (inBlock.length > 0) {
    throw new StateConfigError(
      `the state block of ${file} is invalid: ${inBlock.map((d) => `${d.line}:${d.col} ${d.message} [${d.code}]`).join("; ")}`,
      inBlock,
    );
  }
  const parsed = stateSchema.safeParse(result.document?.state);
  if (!parsed.success) throw new StateError(`the state block of ${file} is invalid`);
  return stateSettingsOf(parsed.data, dir, project, env);
}

/** Opens the backend of `configFile`'s state; the caller closes it. */
export async function stateBackendForConfig(
  configFile: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ backend: StateBackend; secrets: string[] }> {
  const { settings, secrets } = await stateSettingsForConfig(configFile, env);
  return { backend: openBackend(settings), secrets };
}
