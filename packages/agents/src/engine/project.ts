// What the engine needs from a loaded agents.yaml, independent of how it was parsed.
import { basename } from "node:path";
import type { StateBlocks } from "../plan/blocks.js";
import type { DesiredResource } from "../plan/types.js";
import type { StateSettings } from "../state/settings.js";

export interface LoadedProject {
  configPath: string;
  configDir: string;
  /**
   * Ownership label stamped as `agents.project` on every created resource: AGENTS_PROJECT, else the
   * config folder's name. A state that records its project overrides it (engine/identity.ts).
   */
  project: string;
  /** Where `project` came from; default "folder" (a name the state's own may override). */
  projectFrom?: "AGENTS_PROJECT" | "folder";
  desired: DesiredResource[];
  /** `providers.<name>` blocks with secrets resolved. */
  blocks: Partial<Record<string, Record<string, unknown>>>;
  /** Every resolved secret value, redacted from anything printed. */
  secrets: string[];
  warnings: string[];
  /** Where the state lives (the `state:` block or AGENTS_STATE_URL); default: the file beside the config. */
  state?: StateSettings;
  /** The `moved:`, `import:` and `removed:` lists (absent: none). */
  stateBlocks?: StateBlocks;
}

/** Project label for ownership metadata (and the default state workspace): AGENTS_PROJECT, else the config folder's name. */
export function projectName(configDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.AGENTS_PROJECT?.trim() || basename(configDir);
}

/** Whether projectName takes the name from AGENTS_PROJECT or from the folder. */
export function projectSource(env: NodeJS.ProcessEnv = process.env): "AGENTS_PROJECT" | "folder" {
  return env.AGENTS_PROJECT?.trim() ? "AGENTS_PROJECT" : "folder";
}
