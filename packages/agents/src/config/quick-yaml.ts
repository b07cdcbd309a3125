// The common case of reading agents.yaml: the line reader (line-yaml.ts) for files of the plainest
// form, else js-yaml's single-pass loader, about five times faster than building the `yaml`
// library's document with positions (which only a diagnostic needs).
// The schema is YAML 1.2 core with merge keys, like the `yaml` library's; wherever the two readings
// could differ, this reader declines and the caller reads the file with the `yaml` library as
// before: aliases, directives (`%YAML 1.1` changes the schema), explicit tags on core scalars,
// mapping keys that are not strings, numbers or booleans. Any error declines too, so every syntax
// error is reported by one library with one wording. Positions come from the same pass: the
// parser's events carry source offsets, indexed by path only when a diagnostic asks.
// test/config/quick-yaml.test.ts holds the two readers equal, values and positions.
import {
  boolCoreTag,
  constructFromEvents,
  defineMappingTag,
  defineScalarTag,
  EVENT_ID,
  type Event,
  FAILSAFE_SCHEMA,
  floatCoreTag,
  getScalarValue,
  intCoreTag,
  mapTag,
  mergeTag,
  NOT_RESOLVED,
  nullCoreTag,
  parseEvents,
  SCALAR_STYLE,
  type ScalarEvent,
  type ScalarTagDefinition,
} from "js-yaml";
import { CORE_FLOAT, type Indexed, readLines } from "./line-yaml.js";

/** A core scalar tag that resolves plain scalars only; an explicit `!!int` and the like decline. */
function implicitOnly<T>(tag: ScalarTagDefinition<T>): ScalarTagDefinition<T> {
  return defineScalarTag(tag.tagName, {
    ...tag,
    resolve: (source, explicit, name) => (explicit ? NOT_RESOLVED : tag.resolve(source, explicit, name)),
  });
}

/** Object-based mappings whose keys are scalars that read the same as text in both libraries. */
const plainKeysMap = defineMappingTag(mapTag.tagName, {
  ...mapTag,
  addPair: (carrier, key, value) =>
    typeof key === "string" || typeof key === "number" || typeof key === "boolean"
      ? mapTag.addPair(carrier, key, value)
      : "a mapping key that is not a string, number or boolean",
});

/** The core float tag, declining (by throwing) a number too large to hold: see CORE_FLOAT. */
const finiteFloat = defineScalarTag(floatCoreTag.tagName, {
  ...floatCoreTag,
  resolve: (source, explicit, name) => {
    const value = floatCoreTag.resolve(source, explicit, name);
    if (value === NOT_RESOLVED && !explicit && CORE_FLOAT.test(source)) throw new Error("a number too large");
    return value;
  },
});

const schema = FAILSAFE_SCHEMA.withTags(
  implicitOnly(nullCoreTag),
  implicitOnly(boolCoreTag),
  implicitOnly(intCoreTag),
  implicitOnly(finiteFloat),
  mergeTag,
  plainKeysMap,
);

const DIRECTIVE = /^%/m;

type Path = readonly (string | number)[];

/** Where the node at a path starts (or its nearest ancestor, when `exact` is false), and its key. */
export interface Located {
  offset: number;
  exact: boolean;
  keyOffset?: number;
}

export interface QuickRead {
  /** The document as plain data. */
  value: unknown;
  /** The node at `path`; undefined where the `yaml` library must be asked (an empty value). */
  locate(path: Path): Located | undefined;
  /** Top-level keys under which no string can hold a `${VAR}` (line-yaml.ts), when known. */
  withoutReferences?: ReadonlySet<string>;
}

/** The document as plain data with its positions, or undefined when this reader declines. */
export function readQuickly(text: string): QuickRead | undefined {
  const plain = readLines(text);
  if (plain)
    return {
      value: plain.value,
      locate: (path) => locateIn(plain.index(), path),
      withoutReferences: plain.withoutReferences,
    };
  if (DIRECTIVE.test(text)) return undefined;
  let events: Event[];
  let value: unknown;
  try {
    events = parseEvents(text, {});
    const documents = constructFromEvents(events, { source: text, schema, maxAliases: 0 });
    if (documents.length !== 1) return undefined;
    value = documents[0];
  } catch {
    return undefined;
  }
  let root: Indexed | undefined;
  return {
    value,
    locate: (path) => {
      root ??= indexOf(text, events);
      return locateIn(root, path);
    },
  };
}

function locateIn(root: Indexed, path: Path): Located | undefined {
  let current = root;
  for (const segment of path) {
    const next = current.entries?.get(String(segment)) ?? current.items?.[segment as number];
    if (next === undefined || (current.items && typeof segment !== "number")) {
      return current.start < 0 ? undefined : { offset: current.start, exact: false };
    }
    current = next;
  }
  // an empty value, or an empty key (only a tag: `!!str :`), has no offset here: the yaml library's
  if (current.start < 0 || (current.keyStart !== undefined && current.keyStart < 0)) return undefined;
  return { offset: current.start, exact: true, keyOffset: current.keyStart };
}

/** One pass over the parser's events into a tree of offsets keyed as the data is. */
function indexOf(text: string, events: readonly Event[]): Indexed {
  let i = 0;
  const node = (): Indexed => {
    const event = events[i++]!;
    if (event.type === EVENT_ID.SCALAR) return { start: scalarStart(text, event) };
    if (event.type === EVENT_ID.MAPPING) {
      const entries = new Map<string, Indexed>();
      while (events[i]!.type !== EVENT_ID.POP) {
        const keyEvent = events[i] as ScalarEvent;
        const key = keyText(text, keyEvent);
        const keyStart = scalarStart(text, keyEvent);
        i++;
        const value = node();
        value.keyStart = keyStart;
        if (!entries.has(key)) entries.set(key, value);
      }
      i++;
      return { start: event.start, entries };
    }
    if (event.type === EVENT_ID.SEQUENCE) {
      const items: Indexed[] = [];
      while (events[i]!.type !== EVENT_ID.POP) items.push(node());
      i++;
      return { start: event.start, items };
    }
    // The document event: its one node.
    const only = node();
    i++;
    return only;
  };
  return node();
}

const IMPLICIT = [nullCoreTag, boolCoreTag, intCoreTag, floatCoreTag];

/** A mapping key as the data spells it: a plain `0x1F` is the key "31", as in the `yaml` library. */
function keyText(text: string, event: ScalarEvent): string {
  const written = event.valueStart < 0 ? "" : getScalarValue(text, event);
  if (event.style !== SCALAR_STYLE.PLAIN || event.tagStart >= 0) return written;
  for (const tag of IMPLICIT) {
    const value = tag.resolve(written, false, tag.tagName);
    if (value !== NOT_RESOLVED) return String(value);
  }
  return written;
}

/** Where the `yaml` library starts a scalar: at its opening quote, or at a block scalar's header. */
function scalarStart(text: string, event: ScalarEvent): number {
  if (event.valueStart < 0) return -1;
  if (event.style === SCALAR_STYLE.SINGLE_QUOTED || event.style === SCALAR_STYLE.DOUBLE_QUOTED)
    return event.valueStart - 1;
  if (event.style === SCALAR_STYLE.LITERAL_BLOCK || event.style === SCALAR_STYLE.FOLDED_BLOCK) {
    // The content starts on the line after its header (`|`, `>-`, `|2+`, maybe a comment after).
    const lineEnd = text.lastIndexOf("\n", event.valueStart - 1);
    const lineStart = text.lastIndexOf("\n", lineEnd - 1) + 1;
    const header = /[|>][-+1-9]{0,2}[ \t]*(#.*)?\r?$/.exec(text.slice(lineStart, lineEnd));
    return header ? lineStart + header.index : -1;
  }
  return event.valueStart;
}
