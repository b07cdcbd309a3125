// What the engine needs from a loaded agents.yaml, independent of how it was parsed.
import { basename } from "node:path";
import type { DesiredResource } from "../plan/types.js";
import type { StateSettings } from "../state/settings.js";

export interface LoadedProject {
  configPath: string;
  configDir: string;
  /** Ownership label stamped as `agents.project` on every created resource. */
  project: string;
  desired: DesiredResource[];
  /** `providers.<name>` blocks with secrets resolved. */
  blocks: Partial<Record<string, Record<string, unknown>>>;
  /** Every resolved secret value, redacted from anything printed. */
  secrets: string[];
  warnings: string[];
  /** Where the state lives (the `state:` block or AGENTS_STATE_URL); default: the file beside the config. */
  state?: StateSettings;
}

/** Project label for ownership metadata (and the default state workspace): AGENTS_PROJECT, else the config folder's name. */
export function projectName(configDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.AGENTS_PROJECT?.trim() || basename(configDir);
}
