// Which backend holds a project's state: the `state:` block of agents.yaml, else AGENTS_STATE_URL,
// else the file beside agents.yaml. Resolved once, then opened with `openBackend`.
import { isAbsolute, join } from "node:path";
import type { StateBackend } from "./backend.js";
import { FileBackend, STATE_FILE_NAME } from "./file-store.js";
import { DEFAULT_PG_SCHEMA, PostgresBackend, urlSecrets } from "./postgres-store.js";
import { StateError } from "./types.js";

/** The `state:` block as written (after `${VAR}` substitution and validation). */
export interface StateBlock {
  backend?: "file" | "postgres";
  path?: string;
  url?: string;
  workspace?: string;
  schema?: string;
}

export type StateSettings =
  | { backend: "file"; path: string }
  | { backend: "postgres"; url: string; workspace: string; schema: string };

interface SettingsContext {
  configDir: string;
  /** The project name: the default workspace. */
  project: string;
  env?: NodeJS.ProcessEnv;
}

export function resolveStateSettings(block: StateBlock | undefined, ctx: SettingsContext): StateSettings {
  const env = ctx.env ?? process.env;
  if (!block) {
    const url = env.AGENTS_STATE_URL?.trim();
    if (url) {
      if (!/^postgres(ql)?:\/\//.test(url))
        throw new StateError("AGENTS_STATE_URL is not a postgres:// or postgresql:// URL");
      return { backend: "postgres", url, workspace: ctx.project, schema: DEFAULT_PG_SCHEMA };
    }
    return { backend: "file", path: join(ctx.configDir, STATE_FILE_NAME) };
  }
  if ((block.backend ?? "file") === "file") {
    const path = block.path ?? STATE_FILE_NAME;
    return { backend: "file", path: isAbsolute(path) ? path : join(ctx.configDir, path) };
  }
  if (!block.url) throw new StateError("state.backend is postgres but state.url is missing");
  return {
    backend: "postgres",
    url: block.url,
    workspace: block.workspace ?? ctx.project,
    schema: block.schema ?? DEFAULT_PG_SCHEMA,
  };
}

export function openBackend(settings: StateSettings): StateBackend {
  return settings.backend === "file" ? new FileBackend(settings.path) : new PostgresBackend(settings);
}

/** Values of the settings that must never be printed (the connection URL and its password). */
export function settingsSecrets(settings: StateSettings): string[] {
  return settings.backend === "postgres" ? urlSecrets(settings.url) : [];
}
