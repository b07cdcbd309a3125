import {
  type Document,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  type Pair,
  parseDocument,
  type YAMLMap,
} from "yaml";
import type { Diagnostic, SourcePos } from "./diagnostics.js";

export type Path = readonly (string | number)[];

/** A parsed YAML file that can answer "where is this path?" for any diagnostic. */
export class YamlSource {
  readonly lineCounter = new LineCounter();
  readonly doc: Document.Parsed;

  constructor(
    readonly file: string,
    readonly text: string,
  ) {
    // `<<: *anchor` merge keys are accepted (as docker-compose users expect).
    this.doc = parseDocument(text, {
      lineCounter: this.lineCounter,
      prettyErrors: false,
      // Duplicate keys are found by duplicateKeys() in one linear pass (the library compares every
      // pair of keys of a mapping) and reported with our code and a fix.
      uniqueKeys: false,
      merge: true,
    });
  }

  posAt(offset: number): SourcePos {
    const { line, col } = this.lineCounter.linePos(offset);
    return { file: this.file, line, col };
  }

  syntaxDiagnostics(): Diagnostic[] {
    const syntax = this.doc.errors.map((error) => ({
      code: "AGENTS1000",
      severity: "error" as const,
      message: `YAML syntax error: ${firstLine(error.message)}`,
      ...this.posAt(error.pos[0]),
      hint: "fix the YAML syntax; indentation and unquoted `:` or `#` are common causes",
    }));
    return syntax.length > 0 ? syntax : this.duplicateKeys();
  }

  /** A key repeated in one mapping, reported at its second occurrence. */
  private duplicateKeys(): Diagnostic[] {
    const found: Diagnostic[] = [];
    const walk = (node: unknown): void => {
      if (isMap(node)) {
        const seen = new Set<string>();
        for (const pair of node.items) {
          const key = isPair(pair) ? scalarKey(pair.key) : undefined;
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

  /** The deepest node that exists along `path`, and whether the whole path exists. */
  nodeAt(path: Path): { node: Node | null; exact: boolean; keyNode?: Node } {
    let current: unknown = this.doc.contents;
    let keyNode: Node | undefined;
    for (let i = 0; i < path.length; i++) {
      const segment = path[i];
      if (isMap(current)) {
        const pair = this.pairsOf(current).get(String(segment));
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

  /** Position of the value at `path`, or of its nearest existing ancestor. */
  pos(path: Path): SourcePos {
    const { node } = this.nodeAt(path);
    return this.posAt(node?.range?.[0] ?? 0);
  }

  /** Position of the key of the mapping entry at `path` (for unknown keys and resource names). */
  keyPos(path: Path): SourcePos {
    const { node, exact, keyNode } = this.nodeAt(path);
    const target = exact && keyNode ? keyNode : node;
    return this.posAt(target?.range?.[0] ?? 0);
  }

  /** The source text of the value at `path`, exactly as written (before interpolation). */
  rawText(path: Path): string | undefined {
    const { node, exact } = this.nodeAt(path);
    if (!exact || !node?.range) return undefined;
    return this.text.slice(node.range[0], node.range[1]);
  }

  has(path: Path): boolean {
    return this.nodeAt(path).exact;
  }

  /** 1-based source line, for excerpts in the CLI. */
  lineText(line: number): string {
    return this.text.split(/\r?\n/)[line - 1] ?? "";
  }
}

function scalarKey(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return undefined;
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}
