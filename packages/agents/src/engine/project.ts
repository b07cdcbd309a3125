// What the engine needs from a loaded agents.yaml, independent of how it was parsed.
import type { DesiredResource } from "../plan/types.js";

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
}
