import type { PollPolicy } from "../../common/wait.js";
import { delay } from "../../http.js";

/**
 * Timing knobs of the targeted waits (docs/wire/provider-a.md §3.3 and §3.4 values by default; tests shrink
 * them).
 */
export interface ProviderAOptions {
  fileAudit: PollPolicy;
  skillScan: PollPolicy;
  /** Delays before re-posting a skill whose file the server cannot see yet (SKILL_FILE_NOT_FOUND). */
  skillFileRetryMs: number[];
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const DEFAULT_PROVIDER_A_OPTIONS: ProviderAOptions = {
  fileAudit: { initialMs: 1_000, factor: 1.5, maxDelayMs: 4_000, timeoutMs: 120_000 },
  skillScan: { initialMs: 2_000, factor: 2, maxDelayMs: 8_000, timeoutMs: 360_000 },
  skillFileRetryMs: [1_000, 2_000, 4_000, 8_000],
  sleep: delay,
};
