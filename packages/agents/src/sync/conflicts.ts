// One declaration can serve several providers (`defaults.provider: all`, no pin). Sync may only
// change such a declaration where every provider it serves agrees: an edit that one provider
// asks for and another does not would make the other one drift on the next plan.
import { formatPath } from "../model/field-path.js";
import type { Edit } from "./reconcile.js";

export interface ProviderEdits {
  provider: string;
  /** The declaration's YAML path as text, e.g. `agents.writer`. */
  node: string;
  /** Empty when the provider agrees with the file: that is a vote too. */
  edits: Edit[];
}

export function conflictingEdits(results: ProviderEdits[]): string[] {
  const providersOf = new Map<string, Set<string>>();
  for (const r of results) providersOf.set(r.node, (providersOf.get(r.node) ?? new Set()).add(r.provider));
  const byPath = new Map<string, { node: string; path: Edit["path"]; values: Map<string, string> }>();
  for (const r of results) {
    for (const edit of r.edits) {
      const key = `${edit.op === "append" ? "+" : ""}${formatPath(edit.path)}`;
      const entry = byPath.get(key) ?? { node: r.node, path: edit.path, values: new Map() };
      const value = edit.op === "delete" ? "<deleted>" : JSON.stringify(edit.value);
      entry.values.set(r.provider, `${entry.values.get(r.provider) ?? ""}${value}`);
      byPath.set(key, entry);
    }
  }
  const problems: string[] = [];
  for (const [key, entry] of byPath) {
    const providers = providersOf.get(entry.node) ?? new Set();
    if (providers.size <= 1) continue;
    // `model: {provider_c: ..., provider_d: ...}`: each provider edits its own entry.
    if (entry.path.some((segment) => providers.has(String(segment)))) continue;
    const distinct = new Set(entry.values.values());
    if (entry.values.size === providers.size && distinct.size === 1) continue;
    const asked = [...entry.values.keys()].sort().join(", ");
    const all = [...providers].sort().join(", ");
    problems.push(
      `${key.replace(/^\+/, "")}: ${entry.node} serves ${all}, but only a change on ${asked} was found ` +
        "(or they differ); pin the declaration to one provider or make the providers agree, then run sync again",
    );
  }
  return problems;
}
