// Plans computed by the playground, and (with --allow-apply) applying exactly the plan the page
// shows (docs/playground.md §Apply). Like `agents plan --out` then `agents apply PLAN`: the plan
// stays on the server under a random id and is refused when agents.yaml (or a secret it uses)
// changed since it was shown. Progress is streamed with the CLI's own lines.
import { createHash, randomBytes } from "node:crypto";
import {
  apply,
  type EngineOptions,
  type LoadedProject,
  loadConfig,
  loadProject,
  type Plan,
  plan,
  redactor,
  renderPlan,
} from "../../index.js";
import { progressPrinter, resultSummary, retryLine } from "../engine-output.js";

/** Plans kept for an apply: the newest few (a page plans again rather than apply an old one). */
const KEPT = 8;

interface Kept {
  plan: Plan;
  /** What the configuration was when the plan was made (hashed in memory, never sent). */
  config: string;
}

/** The declared resources with their resolved values, and the secrets: any edit changes it. */
function configPrint(project: LoadedProject): string {
  const desired = project.desired.map((r) => [r.address, r.spec, r.external ?? null]);
  return createHash("sha256")
    .update(JSON.stringify([desired, [...project.secrets].sort()]))
    .digest("hex");
}

const CHANGED = "agents.yaml (or a secret it uses) changed since the plan was shown; plan again";

export class PlaygroundPlans {
  private readonly plans = new Map<string, Kept>();
  private applying = false;

  constructor(
    private readonly file: string,
    private readonly env: NodeJS.ProcessEnv,
    readonly allowApply: boolean,
  ) {}

  private async options(): Promise<{ options: EngineOptions; redact: (text: string) => string }> {
    const project = await loadProject({ file: this.file, env: this.env });
    return { options: { project, env: this.env, onNotice: () => {} }, redact: redactor(project.secrets) };
  }

  /** The secrets of the file as it is now (for errors raised before a project loads). */
  async redactNow(text: string): Promise<string> {
    try {
      return redactor((await loadConfig(this.file, { env: this.env })).secretValues)(text);
    } catch {
      return text;
    }
  }

  /** Runs a plan (refresh included, no state written) and keeps it under a new id. */
  async plan() {
    const { options, redact } = await this.options();
    const result = await plan(options);
    const id = randomBytes(12).toString("base64url");
    this.plans.set(id, { plan: result, config: configPrint(options.project) });
    for (const old of this.plans.keys()) if (this.plans.size > KEPT) this.plans.delete(old);
    const actions = result.actions.map((a) => ({
      address: a.address,
      action: a.action,
      reason: a.reason,
      changes: a.changes.map((c) => ({
        path: c.path,
        before: c.before,
        after: c.after,
        sensitive: c.sensitive,
      })),
    }));
    return {
      id,
      actions: JSON.parse(redact(JSON.stringify(actions))) as unknown,
      text: redact(renderPlan(result)),
      command: `agents apply -f ${this.file}`,
      changes: result.actions.some((a) => a.action !== "noop"),
      allowApply: this.allowApply,
    };
  }

  /**
   * Applies the kept plan `id`, handing each progress line to `write` (redacted), then a last
   * `{type: "done"}` or `{type: "error"}`. Refusals (no --allow-apply, an unknown plan, an apply
   * already running) throw before anything is written.
   */
  async apply(id: string, write: (line: unknown) => void): Promise<void> {
    if (!this.allowApply)
      throw new ApplyRefused(
        403,
        "applying from the page is off: start agents playground with --allow-apply",
      );
    const saved = this.plans.get(id);
    if (!saved) throw new ApplyRefused(409, "this plan is no longer known to the playground; plan again");
    if (this.applying) throw new ApplyRefused(409, "an apply is already running");
    this.applying = true;
    let redact = (text: string) => text;
    try {
      const loaded = await this.options();
      redact = loaded.redact;
      const line = (text: string) => write({ type: "line", text: redact(text.replace(/\n$/, "")) });
      const started = performance.now();
      let progress: ((e: Parameters<ReturnType<typeof progressPrinter>>[0]) => void) | undefined;
      if (configPrint(loaded.options.project) !== saved.config) throw new Error(CHANGED);
      // Applied as a saved plan, as `agents apply PLAN_FILE`: the engine refuses it when the state
      // moved on (a plan made before the first apply: once any state was written).
      const outcome = await apply({
        ...loaded.options,
        command: "agents playground",
        savedPlan: saved.plan,
        onPlan: (p) => {
          progress = progressPrinter(line, p);
        },
        onEvent: (e) => progress?.(e),
        onRetry: (n) => line(retryLine(n)),
      });
      // A kept plan is applied once: the state it was made against is gone now.
      this.plans.delete(id);
      const summary = outcome.result
        ? resultSummary(outcome.plan, outcome.result, (performance.now() - started) / 1000)
        : ["No changes. Nothing was applied."];
      for (const text of summary) line(text);
      write({ type: "done", ok: outcome.result?.ok ?? true });
    } catch (error) {
      write({ type: "error", error: redact(await this.redactNow((error as Error).message)) });
    } finally {
      this.applying = false;
    }
  }
}

export class ApplyRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
