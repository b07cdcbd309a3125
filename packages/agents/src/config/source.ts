import {
  type Document,
  isAlias,
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  type Node,
  type Pair,
  parseDocument,
  visit,
  type YAMLMap,
} from "yaml";
import { closest } from "../model/suggest.js";
import type { Diagnostic, SourcePos } from "./diagnostics.js";
import { CORE_FLOAT } from "./line-yaml.js";
import { type Located, type QuickRead, readQuickly } from "./quick-yaml.js";

export type Path = readonly (string | number)[];

/**
 * The most values (mappings, sequences, scalars, keys) a document may hold once its aliases and
 * merges are expanded: 50 times a 5,000-agent file; a "billion laughs" document is far past it.
 */
export const MAX_EXPANDED_VALUES = 2_000_000;

/**
 * A YAML file read for validation: its data at once, and the position of any path when a
 * diagnostic asks. A file the quick reader takes (quick-yaml.ts: the common case) is not parsed
 * again: positions come from its events, and the `yaml` library is asked only where an empty value
 * has none. Any other file is read by the `yaml` library alone.
 */
export class YamlSource {
  /** The document as plain data, before `${VAR}` substitution; undefined when it cannot be read. */
  readonly data: unknown;
  /** Why aliases could not be expanded ("billion laughs"), when they could not. */
  readonly expansionError: string | undefined;
  /** Offset of the alias where the expansion grew too large, when it did. */
  readonly expansionAt: number | undefined;
  private parsed: Document.Parsed | undefined;
  private syntax: Diagnostic[] = [];
  private readonly quick: QuickRead | undefined;
  /**
   * Top-level keys under which no string value can hold a `${VAR}` reference (known for files the
   * line reader took; empty otherwise): interpolation skips them.
   */
  readonly withoutReferences: ReadonlySet<string>;
  /** Offset of the start of each line, for positions. */
  private lineStarts: number[] | undefined;

  constructor(
    readonly file: string,
    readonly text: string,
  ) {
    this.quick = readQuickly(text);
    this.withoutReferences = this.quick?.withoutReferences ?? new Set();
    if (this.quick) {
      this.data = this.quick.value;
      return;
    }
    this.syntax = this.readSyntax();
    if (this.syntax.length > 0) return;
    const bomb = this.expansionBomb();
    if (bomb) {
      this.expansionError = bomb.message;
      this.expansionAt = bomb.offset;
      return;
    }
    try {
      // The size that matters is counted above; the library's own cap counts alias uses, and
      // refused 1,000 agents merging one `&defaults`.
      this.data = this.doc.toJS({ maxAliasCount: -1 });
    } catch (error) {
      this.expansionError = error instanceof Error ? error.message : String(error);
    }
  }

  /**
   * Whether the aliases expand the document past MAX_EXPANDED_VALUES values ("billion laughs"),
   * and at which alias. One pass in document order: an anchor's expanded size is counted once,
   * when its value ends, and an alias adds that size, so a bomb is refused without expanding it.
   */
  private expansionBomb(): { message: string; offset: number } | undefined {
    const sizes = new Map<string, number>();
    let total = 0;
    let at: number | undefined;
    const size = (node: unknown): number => {
      if (at !== undefined) return 0;
      let count: number;
      if (isAlias(node)) {
        count = sizes.get(node.source) ?? 1;
        total += count;
        if (total > MAX_EXPANDED_VALUES) at = node.range?.[0] ?? 0;
      } else {
        total += 1;
        count = 1;
        if (isMap(node)) for (const pair of node.items) count += size(pair.key) + size(pair.value);
        else if (isSeq(node)) for (const item of node.items) count += size(item);
      }
      if (isNode(node) && !isAlias(node) && node.anchor) sizes.set(node.anchor, count);
      return count;
    };
    size(this.doc.contents);
    if (at === undefined) return undefined;
    return {
      message: `the aliases here expand the document past ${MAX_EXPANDED_VALUES.toLocaleString("en-US")} values (an alias bomb)`,
      offset: at,
    };
  }

  /** Whether the file was parsed with positions (for tests: a valid file read quickly is not). */
  get parsedWithPositions(): boolean {
    return this.parsed !== undefined;
  }

  /** The `yaml` library's document, with the source range of every node; parsed on first use. */
  get doc(): Document.Parsed {
    if (this.parsed === undefined) {
      // `<<: *anchor` merge keys are accepted (as docker-compose users expect).
      this.parsed = parseDocument(this.text, {
        prettyErrors: false,
        // Duplicate keys are found by duplicateKeys() in one linear pass (the library compares every
        // pair of keys of a mapping) and reported with our code and a fix.
        uniqueKeys: false,
        merge: true,
      });
    }
    return this.parsed;
  }

  /**
   * 1-based line and column of an offset. Lines break where YAML breaks them: at "\n", "\r\n" and a
   * lone "\r" (a file saved with old Mac line endings is one line to a reader counting "\n" only).
   */
  posAt(offset: number): SourcePos {
    const starts = this.starts();
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return { file: this.file, line: low + 1, col: offset - starts[low]! + 1 };
  }

  /** Syntax errors and duplicate keys; none when the quick reader took the file. */
  syntaxDiagnostics(): Diagnostic[] {
    return this.syntax;
  }

  private readSyntax(): Diagnostic[] {
    const syntax = this.doc.errors.map((error) =>
      error.code === "MULTIPLE_DOCS"
        ? {
            // The library's own words point at its API (`YAML.parseAllDocuments()`), not at the file.
            code: "AGENTS1000",
            severity: "error" as const,
            message: "the file holds more than one YAML document; a second one starts here",
            ...this.posAt(error.pos[0]),
            hint: "agents.yaml must hold one document: remove the `---` line and what follows it, or merge it into the first document",
          }
        : {
            code: "AGENTS1000",
            severity: "error" as const,
            message: `YAML syntax error: ${firstLine(error.message)}`,
            ...this.posAt(error.pos[0]),
            hint: "fix the YAML syntax; indentation and unquoted `:` or `#` are common causes",
          },
    );
    if (syntax.length > 0) return syntax;
    const aliases = this.unresolvedAliases();
    return aliases.length > 0 ? aliases : [...this.duplicateKeys(), ...this.numbersTooLarge()];
  }

  /**
   * A number written in digits too large to hold (`1e400`), at the number: the `yaml` library reads
   * it as infinity where js-yaml reads text, so it is refused rather than read one way or the
   * other. `.inf` is infinity as written, and kept.
   */
  private numbersTooLarge(): Diagnostic[] {
    const found: Diagnostic[] = [];
    visit(this.doc, {
      Scalar: (_key, node) => {
        if (typeof node.value !== "number" || Number.isFinite(node.value) || node.type !== "PLAIN") return;
        const written = node.source ?? String(node.value);
        if (!CORE_FLOAT.test(written)) return;
        found.push({
          code: "AGENTS1000",
          severity: "error",
          message: `the number ${written} is too large to hold (it would read as infinity)`,
          ...this.posAt(node.range?.[0] ?? 0),
          hint: `quote it ("${written}") to mean the text, or write a smaller number`,
        });
      },
    });
    return found;
  }

  /**
   * An alias whose anchor is not set before it, or that stands inside the value its anchor names,
   * reported where the alias stands (the `yaml` library finds the first only while expanding, with
   * no position, and builds the second as a value that contains itself).
   */
  private unresolvedAliases(): Diagnostic[] {
    const found: Diagnostic[] = [];
    // Each anchor's latest definition so far: an alias names the one set last before it.
    const anchors = new Map<string, Node>();
    visit(this.doc, {
      Node: (_key, node) => {
        if (node.anchor) anchors.set(node.anchor, node);
      },
      Alias: (_key, alias, ancestors) => {
        const target = anchors.get(alias.source);
        if (target !== undefined && ancestors.includes(target)) {
          // `&m {self: *m}`: the value would contain itself, endlessly.
          found.push({
            code: "AGENTS1000",
            severity: "error",
            message: `YAML alias *${alias.source} stands inside the value its anchor &${alias.source} names, so that value would contain itself`,
            ...this.posAt(alias.range?.[0] ?? 0),
            hint: `move *${alias.source} out of the value anchored as &${alias.source}, or write the value here`,
          });
          return;
        }
        if (target !== undefined) return;
        const near = closest(alias.source, anchors.keys());
        const define = `set the anchor &${alias.source} on the value to reuse, above this line (e.g. a top-level \`x-${alias.source}: &${alias.source} ...\`), or write the value here`;
        found.push({
          code: "AGENTS1000",
          severity: "error",
          message: `YAML alias *${alias.source} names no anchor set before it`,
          ...this.posAt(alias.range?.[0] ?? 0),
          hint: near ? `did you mean *${near}? Otherwise ${define}` : define,
        });
      },
    });
    return found;
  }

  /**
   * A key repeated in one mapping, reported at its second occurrence; a key that is null (`~`,
   * `null`, empty) or a collection, which JavaScript objects cannot hold (one is spelled "null" or
   * "[object Object]" and may silently replace another entry), at the key.
   */
  private duplicateKeys(): Diagnostic[] {
    const found: Diagnostic[] = [];
    // Each anchor's latest value so far, for merges (Alias.resolve searches the whole document).
    const anchors = new Map<string, Node>();
    const walk = (node: unknown): void => {
      if (isNode(node) && !isAlias(node) && node.anchor) anchors.set(node.anchor, node);
      if (isMap(node)) {
        const seen = new Set<string>();
        for (const pair of node.items) {
          const what = isPair(pair) ? notTextKey(pair.key) : undefined;
          if (what !== undefined) {
            const range = (pair.key as Node | null)?.range;
            const value = (pair.value as Node | null)?.range?.[0] ?? 0;
            // An empty key has an empty range: its `:` is the place.
            const at =
              range && range[1] > range[0] ? range[0] : Math.max(0, this.text.lastIndexOf(":", value));
            found.push({
              code: "AGENTS1000",
              severity: "error",
              message: `a mapping key must be text, not ${what}`,
              ...this.posAt(at),
              hint: 'write the key as text (quote it: "null", "[a]"), or remove the entry',
            });
            walk(pair.value);
            continue;
          }
          const key = isPair(pair) ? scalarKey(pair.key) : undefined;
          if (key === "<<" && isPair(pair)) found.push(...this.mergeSources(pair, anchors));
          if (key !== undefined && key !== "<<") {
            if (seen.has(key)) {
              found.push({
                code: "AGENTS1000",
                severity: "error",
                message: `YAML syntax error: duplicate key "${key}"; map keys must be unique`,
                ...this.posAt((pair.key as Node).range?.[0] ?? 0),
                hint: "remove or rename one of the two entries",
              });
            }
            seen.add(key);
          }
          if (isPair(pair)) walk(pair.value);
        }
      } else if (isSeq(node)) {
        for (const item of node.items) walk(item);
      }
    };
    walk(this.doc.contents);
    return found;
  }

  /**
   * A `<<` merge whose source is not a mapping, an alias of one, or a list of them, reported at
   * that source (the `yaml` library refuses it only while expanding, with no position).
   */
  private mergeSources(pair: Pair, anchors: ReadonlyMap<string, Node>): Diagnostic[] {
    const value = pair.value as Node | null;
    const sources = isSeq(value) ? (value.items as Node[]) : [value];
    const found: Diagnostic[] = [];
    for (const source of sources) {
      const target = isAlias(source) ? anchors.get(source.source) : source;
      if (isMap(target)) continue;
      const what = isSeq(target)
        ? "a list"
        : isScalar(target) && target.value !== null
          ? "a scalar"
          : "empty";
      found.push({
        code: "AGENTS1000",
        severity: "error",
        message: `a merge key \`<<\` takes a mapping, an alias of one (\`*name\`) or a list of them; this is ${what}`,
        ...this.posAt(source?.range?.[0] ?? (pair.key as Node | null)?.range?.[0] ?? 0),
        hint: "merge a mapping: `<<: *defaults` where `&defaults` names a mapping, or write the fields here",
      });
    }
    return found;
  }

  /**
   * Where the node at `path` starts, or its nearest existing ancestor (`exact` false), and where
   * its key starts. From the quick reader's offsets when it has them, else from the document.
   */
  private locate(path: Path): Located {
    const quick = this.quick?.locate(path);
    if (quick) return quick;
    const { node, exact, keyNode } = this.nodeAt(path);
    return { offset: node?.range?.[0] ?? 0, exact, keyOffset: keyNode?.range?.[0] };
  }

  /** The deepest node of the `yaml` document along `path`, and whether the whole path exists. */
  private nodeAt(path: Path): { node: Node | null; exact: boolean; keyNode?: Node } {
    let current: unknown = this.doc.contents;
    let keyNode: Node | undefined;
    for (let i = 0; i < path.length; i++) {
      const segment = path[i];
      if (isMap(current)) {
        const pairs = this.pairsOf(current);
        const pair = pairs.get(String(segment));
        // A key merged in (`<<: *defaults`) is written elsewhere: the merge is where it enters.
        const merge = pair ? undefined : pairs.get("<<");
        if (merge && this.present(path.slice(0, i + 1)))
          return { node: (merge.value as Node | null) ?? (merge.key as Node), exact: false };
        if (!pair) return { node: current as Node, exact: false };
        keyNode = pair.key as Node;
        current = pair.value ?? pair.key;
      } else if (isSeq(current) && typeof segment === "number") {
        const item = current.items[segment];
        if (item === undefined) return { node: current as Node, exact: false };
        keyNode = undefined;
        current = item;
      } else {
        return { node: (current as Node) ?? null, exact: false };
      }
    }
    return { node: (current as Node) ?? null, exact: true, keyNode };
  }

  /** Key lookup per mapping, built once: positions are asked for thousands of times in big files. */
  private readonly pairIndex = new WeakMap<object, Map<string, Pair>>();

  private pairsOf(map: YAMLMap): Map<string, Pair> {
    let index = this.pairIndex.get(map);
    if (!index) {
      index = new Map();
      for (const item of map.items) {
        const key = isPair(item) ? scalarKey(item.key) : undefined;
        if (key !== undefined && !index.has(key)) index.set(key, item as Pair);
      }
      this.pairIndex.set(map, index);
    }
    return index;
  }

  /**
   * Offset where `needle` is written inside the scalar at `path`, at or after `from` (an offset an
   * earlier call returned, to find the next one); the scalar's own start when it is not found. A
   * `${VAR}` on the third line of a block scalar is placed there, not on the `|` line.
   */
  offsetIn(path: Path, needle: string, from = 0): number {
    const { offset, exact } = this.locate(path);
    // An alias (`*name`) is not where its text is written: it stays the place to report.
    if (!exact || this.text.charCodeAt(offset) === 42) return offset;
    const found = this.text.indexOf(needle, Math.max(offset, from));
    return found < 0 ? offset : found;
  }

  /** Position of the value at `path`, or of its nearest existing ancestor. */
  pos(path: Path): SourcePos {
    return this.posAt(this.locate(path).offset);
  }

  /** Position of the key of the mapping entry at `path` (for unknown keys and resource names). */
  keyPos(path: Path): SourcePos {
    const { offset, exact, keyOffset } = this.locate(path);
    return this.posAt(exact && keyOffset !== undefined ? keyOffset : offset);
  }

  /**
   * The scalar at `path` as written, before `${VAR}` substitution (a number or boolean as text);
   * undefined for a mapping, a sequence or a missing path.
   */
  written(path: Path): string | undefined {
    let current: unknown = this.data;
    for (const segment of path) {
      if (current === null || typeof current !== "object") return undefined;
      if (!Object.hasOwn(current, segment)) return undefined;
      current = (current as Record<string | number, unknown>)[segment];
    }
    return current !== null && typeof current === "object" ? undefined : String(current);
  }

  /** Whether the data (after merges) holds a value at `path`, written here or merged in. */
  present(path: Path): boolean {
    let current: unknown = this.data;
    for (const segment of path) {
      if (current === null || typeof current !== "object" || !Object.hasOwn(current, segment)) return false;
      current = (current as Record<string | number, unknown>)[segment];
    }
    return current !== undefined;
  }

  has(path: Path): boolean {
    return this.locate(path).exact;
  }

  /** Offset of the start of each line (after each "\n", "\r\n" or lone "\r"), found once. */
  private starts(): number[] {
    if (this.lineStarts === undefined) {
      this.lineStarts = [0];
      const breaks = /\r\n?|\n/g;
      for (let found = breaks.exec(this.text); found; found = breaks.exec(this.text))
        this.lineStarts.push(breaks.lastIndex);
    }
    return this.lineStarts;
  }

  /**
   * 1-based source line, for excerpts in the CLI: the text between two line starts, without its
   * line break (what splitting the text at /\r\n|\r|\n/ gives, without splitting a 20,000-line
   * file for a handful of excerpts).
   */
  lineText(line: number): string {
    const starts = this.starts();
    if (line < 1 || line > starts.length) return "";
    const from = starts[line - 1]!;
    const next = starts[line];
    if (next === undefined) return this.text.slice(from);
    const crlf =
      this.text.charCodeAt(next - 1) === 10 && this.text.charCodeAt(next - 2) === 13 && next - 2 >= from;
    return this.text.slice(from, crlf ? next - 2 : next - 1);
  }
}

/** What a key that cannot be a name is ("null", "a collection"), or undefined for a fit key. */
function notTextKey(key: unknown): string | undefined {
  if (key === null || key === undefined || (isScalar(key) && key.value === null)) return "null";
  if (isMap(key) || isSeq(key)) return "a collection";
  return undefined;
}

function scalarKey(key: unknown): string | undefined {
  // The merge key `<<` is read as a symbol (merge: true): "<<", not "Symbol(<<)".
  if (isScalar(key)) return typeof key.value === "symbol" ? (key.value.description ?? "") : String(key.value);
  return undefined;
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}
