// The `lifecycle:` block of every declaration (docs/configuration.md#lifecycle): each
// `ignore_changes` path names a field the kind has, and `create_before_destroy` is asked for only
// where the provider lets the old and the new object exist at once.
import { z } from "zod";
import { KINDS, type Kind } from "../../model/kinds.js";
import { closest } from "../../model/suggest.js";
import type { LifecycleDecl } from "../schema/index.js";
import { RESOURCE_SCHEMAS } from "../schema/index.js";
import type { RuleContext } from "./context.js";

type Json = Record<string, any>;

/** Fields that are not the resource's own: where it lives, how it is referenced, this block. */
const NOT_FIELDS = new Set(["provider", "lifecycle", "environment_id", "identity_id", "tunnel_id"]);

/**
 * Kinds compared by what they upload (a digest of `source`), not field by field: a path cannot
 * pick part of that, so only `all` is taken.
 */
const COMPARED_BY_CONTENT = new Set<Kind>(["files", "skills"]);

const kindSchemas = new Map<Kind, Json>();

function schemaOf(kind: Kind): Json {
  let schema = kindSchemas.get(kind);
  if (!schema) {
    schema = z.toJSONSchema(RESOURCE_SCHEMAS[kind], { io: "input", unrepresentable: "any" }) as Json;
    kindSchemas.set(kind, schema);
  }
  return schema;
}

function alternatives(s: Json): Json[] {
  const options = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])] as Json[];
  return options.length > 0 ? options.flatMap(alternatives) : [s];
}

/** Whether `parts` is a place inside a value of schema `s` (`*` or an index for list items and map keys). */
function holds(s: Json, parts: readonly string[]): boolean {
  if (parts.length === 0) return true;
  const [head, ...rest] = parts as [string, ...string[]];
  return alternatives(s).some((option) => {
    if (option.type === "array" && option.items)
      return (head === "*" || /^\d+$/.test(head)) && holds(option.items, rest);
    const properties = (option.properties ?? {}) as Record<string, Json>;
    if (Object.hasOwn(properties, head)) return holds(properties[head]!, rest);
    if (head === "*" && Object.keys(properties).length > 0)
      return Object.values(properties).some((p) => holds(p, rest));
    const extra = option.additionalProperties;
    return extra !== undefined && extra !== false && holds(extra === true ? {} : extra, rest);
  });
}

const pathLists = new Map<Kind, string[]>();

/** Every field path of a kind to a small depth, for "did you mean". */
function pathsOf(kind: Kind): string[] {
  let paths = pathLists.get(kind);
  if (paths) return paths;
  paths = [];
  const walk = (s: Json, prefix: string, depth: number) => {
    if (depth > 3) return;
    for (const option of alternatives(s)) {
      if (option.type === "array" && option.items) walk(option.items, `${prefix}.*`, depth + 1);
      for (const [key, child] of Object.entries((option.properties ?? {}) as Record<string, Json>)) {
        const path = prefix ? `${prefix}.${key}` : key;
        if (!prefix && NOT_FIELDS.has(key)) continue;
        if (!paths!.includes(path)) paths!.push(path);
        walk(child, path, depth + 1);
      }
    }
  };
  walk(schemaOf(kind), "", 0);
  pathLists.set(kind, paths);
  return paths;
}

/** The noun of one object of a kind, for messages (`agents` → "agent"). */
function singular(kind: Kind): string {
  return kind === "memory_stores" ? "memory store" : kind.replace(/ies$/, "y").replace(/s$/, "");
}

export function checkLifecycle(ctx: RuleContext): void {
  for (const kind of KINDS) {
    for (const [name, spec] of ctx.declarations<
      Record<string, unknown> & { lifecycle?: LifecycleDecl; provider?: string }
    >(kind)) {
      const lifecycle = spec.lifecycle;
      if (!lifecycle) continue;
      const at = [kind, name, "lifecycle"];
      const external = (["environment_id", "identity_id", "tunnel_id"] as const).find(
        (f) => spec[f] !== undefined,
      );
      if (external) {
        ctx.warn(
          "AGENTS1802",
          `${kind}.${name} is an external reference (${external}): agents never creates, updates or deletes it, so \`lifecycle\` has no effect`,
          at,
          "remove the lifecycle block",
        );
        continue;
      }
      checkIgnoreChanges(ctx, kind, name, lifecycle);
      if (lifecycle.create_before_destroy === true) checkCreateBeforeDestroy(ctx, kind, name, spec);
    }
  }
}

function checkIgnoreChanges(ctx: RuleContext, kind: Kind, name: string, lifecycle: LifecycleDecl): void {
  const paths = lifecycle.ignore_changes;
  if (!Array.isArray(paths)) return;
  paths.forEach((path, i) => {
    const at = [kind, name, "lifecycle", "ignore_changes", i];
    if (path === "all") {
      ctx.report(
        "AGENTS1800",
        "`all` stands for every field on its own, not as a list item",
        at,
        "write `ignore_changes: all`, or list field paths",
      );
      return;
    }
    if (COMPARED_BY_CONTENT.has(kind)) {
      ctx.report(
        "AGENTS1803",
        `${kind} are compared by the content they upload (a digest of \`source\`), not field by field, so \`ignore_changes\` cannot name \`${path}\``,
        at,
        "write `ignore_changes: all` to ignore every change to it, or remove the line",
      );
      return;
    }
    const parts = path.split(".");
    if (!NOT_FIELDS.has(parts[0]!) && !parts.some((p) => p === "") && holds(schemaOf(kind), parts)) return;
    const match = closest(path, pathsOf(kind));
    const fields = pathsOf(kind).filter((p) => !p.includes("."));
    ctx.report(
      "AGENTS1800",
      `\`ignore_changes\` names \`${path}\`, which is not a field of ${kind}` +
        (match ? ` (did you mean "${match}"?)` : ""),
      at,
      match
        ? `write \`${match}\`; paths are dot-separated, with \`*\` for any list item or map key`
        : `fields of ${kind}: ${fields.join(", ")}; paths are dot-separated, with \`*\` for any list item or map key`,
    );
  });
}

function checkCreateBeforeDestroy(
  ctx: RuleContext,
  kind: Kind,
  name: string,
  spec: { provider?: string },
): void {
  for (const { provider, caps } of ctx.targets(spec, kind)) {
    const field = caps.uniqueNames?.[kind];
    if (!field) continue;
    ctx.report(
      "AGENTS1801",
      `${provider} keeps the ${field} of each ${singular(kind)} unique among live objects, so a replacement cannot create the new ${singular(kind)} while the old one still holds it: \`create_before_destroy\` is not possible here`,
      [kind, name, "lifecycle", "create_before_destroy"],
      `remove the line (the old ${singular(kind)} is deleted first, then the new one created)` +
        (spec.provider === undefined
          ? `, or pin the ${singular(kind)} to a provider that allows both at once`
          : ""),
    );
  }
}
