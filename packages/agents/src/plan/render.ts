// Text rendering of a plan (the CLI prints it; the library returns it as a string).
import { isEmptyValue } from "./diff.js";
import {
  type ActionType,
  type FieldChange,
  hasChanges,
  incompleteMessage,
  type Plan,
  type PlannedAction,
  refreshErrors,
} from "./types.js";

const SYMBOL: Record<ActionType, string> = {
  create: "+",
  update: "~",
  replace: "-/+",
  delete: "-",
  adopt: "<~",
  read: "<=",
  noop: " ",
  import: "<-",
  forget: ".",
};

function formatValue(value: unknown, max = 80): string {
  const text = JSON.stringify(value) ?? "null";
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function renderChange(change: FieldChange, action?: ActionType): string {
  const tags = [
    change.source === "drift" ? "(changed outside agents)" : "",
    change.forcesReplacement ? "# forces replacement" : "",
  ].filter(Boolean);
  const suffix = tags.length ? `  ${tags.join(" ")}` : "";
  if (change.sensitive) return `${action === "create" ? "+" : "~"} ${change.path}: (sensitive)${suffix}`;
  if (isEmptyValue(change.before)) return `+ ${change.path}: ${formatValue(change.after)}${suffix}`;
  if (isEmptyValue(change.after)) return `- ${change.path}: ${formatValue(change.before)}${suffix}`;
  return `~ ${change.path}: ${formatValue(change.before)} → ${formatValue(change.after)}${suffix}`;
}

export function renderAction(action: PlannedAction): string[] {
  const id = action.remoteId ? ` (${action.remoteId})` : "";
  // A move with nothing else to do is shown as the move; as Terraform marks replacements, `+/-`
  // creates the new object first and `-/+` deletes the old one first.
  const moveOnly = action.previousAddress !== undefined && action.action === "noop";
  const symbol = moveOnly
    ? "->"
    : action.action === "replace" && action.createBeforeDestroy
      ? "+/-"
      : SYMBOL[action.action];
  const verb = moveOnly ? "move" : action.action;
  const lines = [`${symbol.padStart(3)} ${action.address}${id}: ${verb}, ${action.reason}`];
  for (const change of action.changes) lines.push(`        ${renderChange(change, action.action)}`);
  for (const warning of action.warnings) lines.push(`        ! ${warning}`);
  return lines;
}

function renderSummary(plan: Plan): string {
  const s = plan.summary;
  const verb = plan.operation === "destroy" ? "destroy" : "apply";
  const parts = [
    `${s.create} to create`,
    `${s.update} to update`,
    `${s.replace} to replace`,
    `${s.delete} to ${plan.operation === "destroy" ? "destroy" : "delete"}`,
  ];
  if (s.adopt) parts.push(`${s.adopt} to adopt`);
  if (s.read) parts.push(`${s.read} external to verify`);
  if (s.import) parts.push(`${s.import} to import`);
  const moves = plan.actions.filter((a) => a.previousAddress !== undefined).length;
  if (moves) parts.push(`${moves} to move`);
  if (s.forget) parts.push(`${s.forget} to forget`);
  return `Plan (${verb}): ${parts.join(", ")}.`;
}

/**
 * `state: postgres HOST:PORT/DB schema S workspace "W" (project "P", 12 resources)`: which state
 * a plan read, so a clone that reads an empty or another workspace shows it on the first line.
 */
export function stateLine(state: Plan["state"]): string | undefined {
  if (!state.location) return undefined;
  const n = state.recorded ?? 0;
  const held = n === 0 ? "empty: nothing recorded there yet" : `${n} resource${n === 1 ? "" : "s"}`;
  return `state: ${state.backend === "file" ? "file " : ""}${state.location} (project "${state.project}", ${held})`;
}

export function renderPlan(plan: Plan, options: { showNoop?: boolean } = {}): string {
  const lines: string[] = [];
  const source = stateLine(plan.state);
  if (source) lines.push(source);
  for (const warning of plan.warnings) lines.push(`warning: ${warning}`);
  const shown = plan.actions.filter(
    (a) =>
      options.showNoop || a.action !== "noop" || a.warnings.length > 0 || a.previousAddress !== undefined,
  );
  if (refreshErrors(plan).length > 0) {
    // A plan that could not read the remote never says it matches.
    for (const a of shown) lines.push(...renderAction(a));
    if (hasChanges(plan)) lines.push("", renderSummary(plan));
    lines.push("", `Error: ${incompleteMessage(plan)}`);
    return `${lines.join("\n")}\n`;
  }
  if (!hasChanges(plan)) {
    for (const a of shown) lines.push(...renderAction(a));
    lines.push(
      plan.operation === "destroy"
        ? "No changes. Nothing in state to destroy."
        : "No changes. The remote resources match the configuration.",
    );
    return `${lines.join("\n")}\n`;
  }
  for (const action of shown) lines.push(...renderAction(action));
  lines.push("", renderSummary(plan));
  return `${lines.join("\n")}\n`;
}
