// The CLI's plan/apply/sync/destroy steps, run in-process through the library API: the same
// calls the commands make (src/cli/commands), the same renderer and the same redaction of every
// printed line, against real simulators over real sockets with real state files. A spawned CLI
// costs a Node start and a bundle load per step; tests that check the engine, not the CLI's
// wiring, run here (test/e2e keeps spawned smoke rows for the wiring itself).
import { join } from "node:path";
import { changeReporter, retryLine } from "../../src/cli/engine-output.js";
import {
  ALL_ADAPTERS,
  apply,
  applyRefreshOnly,
  destroy,
  type EngineOptions,
  formatDiagnostic,
  hasChanges,
  type LoadedProject,
  loadConfig,
  loadProject,
  type Plan,
  plan,
  planRefreshOnly,
  type RefreshOnlyPlan,
  redactor,
  refreshErrors,
  renderPlan,
  renderRefreshOnly,
  syncProject,
  writeSynced,
} from "../../src/index.js";

/** The loaded project and the engine options every step passes. */
interface Loaded {
  project: LoadedProject;
  adapters: typeof ALL_ADAPTERS;
  env: NodeJS.ProcessEnv;
  http?: EngineOptions["http"];
}

/** Flags of plan and apply beyond the defaults: `--replace ADDRESS` (repeatable). */
export interface RunFlags {
  replace?: string[];
}

/** One step's outcome: `code` as the CLI would exit, `text` everything it would print. */
export interface StepResult {
  code: number;
  text: string;
  /** The step threw (what the CLI prints as `error: ...` on stderr), redacted; "" when it did not. */
  error: string;
}

export interface InProcessProject {
  validate(): Promise<StepResult>;
  /** `agents plan --detailed-exitcode`: 0 no changes, 2 changes, 1 incomplete or failed. */
  plan(options?: RunFlags): Promise<StepResult & { plan?: Plan }>;
  /** `agents plan --refresh-only --detailed-exitcode`: 0 no drift, 2 drift, 1 incomplete or failed. */
  planRefreshOnly(): Promise<StepResult & { drift?: RefreshOnlyPlan }>;
  /** `agents apply --refresh-only -y`, or answered "no" when `confirm` is false. */
  applyRefreshOnly(options?: { confirm?: boolean }): Promise<StepResult & { accepted?: number }>;
  /** `agents apply -y` / `agents destroy -y`. */
  apply(options?: RunFlags): Promise<StepResult>;
  destroy(): Promise<StepResult>;
  /**
   * `agents sync` (in place; with dryRun, `--dry-run`: nothing written); `changed` says whether
   * it rewrote (or would rewrite) agents.yaml, unset when it failed.
   */
  sync(options?: { dryRun?: boolean }): Promise<StepResult & { changed?: boolean }>;
  /** Every text any step produced so far (plans, progress, summaries, errors). */
  readonly texts: string[];
}

/**
 * A project folder driven in-process. `env` is laid over process.env exactly as the spawned CLI
 * gets it (test/e2e/cli.ts), so `.env`, AGENTS_BASE_URL_* and AGENTS_STATE_KEY act the same.
 * `http` and `adapters` are what the CLI cannot be given: a test may shorten the retry waits (the
 * policy itself is tested in test/providers/http.test.ts, a provider's own waits in its tests).
 */
export function inProcessProject(
  dir: string,
  env: Record<string, string>,
  options: { http?: EngineOptions["http"]; adapters?: typeof ALL_ADAPTERS } = {},
): InProcessProject {
  const file = join(dir, "agents.yaml");
  const fullEnv: NodeJS.ProcessEnv = { ...process.env, AGENTS_DEBUG: "", NO_COLOR: "1", ...env };
  const texts: string[] = [];

  /** Runs one step; an error becomes exit code 1 and its redacted message, as in cli/main.ts. */
  async function step<T extends object>(
    body: (print: (line: string) => void, load: () => Promise<Loaded>) => Promise<T & { code: number }>,
  ): Promise<StepResult & Partial<T>> {
    const lines: string[] = [];
    let redact = (text: string) => text;
    const print = (line: string) => lines.push(redact(line));
    try {
      const result = await body(print, async () => {
        const project = await loadProject({ file, env: fullEnv });
        // From here on, as in the CLI, every line is redacted of the project's secret values.
        redact = redactor(project.secrets);
        return {
          project,
          adapters: options.adapters ?? ALL_ADAPTERS,
          env: fullEnv,
          ...(options.http ? { http: options.http } : {}),
        };
      });
      const text = lines.join("\n");
      texts.push(text);
      return { ...result, text, error: "" };
    } catch (error) {
      const message = redact(error instanceof Error ? error.message : String(error));
      const text = lines.join("\n");
      texts.push(text, message);
      return { code: 1, text, error: message } as StepResult & Partial<T>;
    }
  }

  const change = (operation: "apply" | "destroy", flags: RunFlags = {}) =>
    step(async (print, load) => {
      const engine = await load();
      const report = changeReporter(print, engine.project.warnings);
      const outcome = await (operation === "apply" ? apply : destroy)({
        ...engine,
        parallelism: 10,
        ...(flags.replace ? { replace: flags.replace } : {}),
        onPlan: report.onPlan,
        // -y: confirmed without asking.
        confirm: async () => true,
        onEvent: report.onEvent,
        onRetry: report.onRetry,
        onNotice: print,
      });
      if (!outcome.result) return { code: 0 };
      for (const line of report.summary(outcome.plan, outcome.result)) print(line);
      return { code: outcome.result.ok ? 0 : 1 };
    });

  return {
    texts,
    validate: () =>
      step(async (print) => {
        const result = await loadConfig(file, { env: fullEnv });
        for (const d of result.diagnostics) print(formatDiagnostic(d, result.source?.lineText(d.line)));
        return { code: result.diagnostics.some((d) => d.severity === "error") ? 1 : 0 };
      }),
    plan: (flags: RunFlags = {}) =>
      step(async (print, load) => {
        const engine = await load();
        const planned = await plan({
          ...engine,
          ...(flags.replace ? { replace: flags.replace } : {}),
          onRetry: (notice) => print(retryLine(notice)),
          onNotice: print,
        });
        for (const w of engine.project.warnings) print(`${w}\n`);
        print(renderPlan(planned));
        const code = refreshErrors(planned).length > 0 ? 1 : hasChanges(planned) ? 2 : 0;
        return { code, plan: planned };
      }),
    planRefreshOnly: () =>
      step(async (print, load) => {
        const drift = await planRefreshOnly({ ...(await load()), onNotice: print });
        print(renderRefreshOnly(drift));
        return { code: drift.errors.length > 0 ? 1 : drift.drift.length > 0 ? 2 : 0, drift };
      }),
    applyRefreshOnly: ({ confirm = true } = {}) =>
      step(async (print, load) => {
        const outcome = await applyRefreshOnly({
          ...(await load()),
          onNotice: print,
          onPlan: (drift) => print(renderRefreshOnly(drift)),
          confirm: async () => confirm,
        });
        return { code: outcome.confirmed ? 0 : 1, accepted: outcome.accepted };
      }),
    apply: (flags) => change("apply", flags),
    destroy: () => change("destroy"),
    sync: (options = {}) =>
      step(async (print, load) => {
        const engine = await load();
        const result = await syncProject({ ...engine, command: "agents sync", onNotice: print });
        for (const warning of result.warnings) print(`warning: ${warning}`);
        const changed = result.after !== result.before;
        if (changed && !options.dryRun) await writeSynced(engine.project.configPath, result, true);
        for (const line of result.changes) print(line);
        return { code: 0, changed };
      }),
  };
}
