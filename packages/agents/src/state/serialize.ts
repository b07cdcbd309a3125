// The stored text of a state: the same JSON in a file and in a database row.
import type { ResourceState, State } from "./types.js";

/**
 * Each entry's text as it sits in the stored JSON (indented under `resources`). Entries are never
 * changed in place (a change replaces the object), so a wide apply serializes each entry once
 * instead of the whole state on every write.
 */
const entryText = new WeakMap<ResourceState, string>();

function resourceText(entry: ResourceState): string {
  let text = entryText.get(entry);
  if (text === undefined) {
    text = JSON.stringify(entry, null, 2).replaceAll("\n", "\n    ");
    entryText.set(entry, text);
  }
  return text;
}

/**
 * The stored text of a state (the same JSON in a file and in a database row): sorted, no journal.
 * Exactly `JSON.stringify({version, serial, lineage, resources, ...rest}, null, 2)` with the
 * resources sorted by address, built from the cached text of each entry.
 */
export function serialize(state: State): string {
  const { pending: _pending, version, serial, lineage, resources, ...rest } = state;
  const addresses = Object.keys(resources).sort();
  const body = addresses.length
    ? `{\n${addresses.map((a) => `    ${JSON.stringify(a)}: ${resourceText(resources[a]!)}`).join(",\n")}\n  }`
    : "{}";
  const tail = JSON.stringify(rest, null, 2);
  const extra = tail === "{}" ? "" : `,\n${tail.slice(2, -2)}`;
  return `{\n  "version": ${JSON.stringify(version)},\n  "serial": ${JSON.stringify(serial)},\n  "lineage": ${JSON.stringify(lineage)},\n  "resources": ${body}${extra}\n}\n`;
}

/** JSON with every object's keys sorted: equal states give equal text whatever stored them (jsonb reorders keys). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}
