// The plainest agents.yaml files, read line by line: block mappings and sequences of plain and
// one-line quoted scalars, one-line flow sequences of such scalars (`[bash, read]`) and `{}`, which
// is what most files are, and what a generated file of thousands of declarations is. It is several
// times faster than building the parser's events. Anything else declines, and the file is read by
// js-yaml's events (quick-yaml.ts) as before: block scalars (`|`, `>`), flow mappings and nested
// flow collections, anchors, aliases, tags, multi-line plain or quoted scalars, escapes in double
// quotes, keys that are quoted or not plain text, tabs, carriage returns, control or special
// line-break characters, document markers.
// Plain scalars resolve with js-yaml's own core tags, so a value reads as js-yaml reads it.
// test/config/quick-yaml.test.ts holds this reader, js-yaml's and the `yaml` library equal, values
// and positions.
import {
  boolCoreTag,
  floatCoreTag,
  intCoreTag,
  NOT_RESOLVED,
  nullCoreTag,
  type ScalarTagDefinition,
} from "js-yaml";

/** Which core tags may resolve a plain scalar, by its first character (js-yaml's own dispatch). */
const BY_FIRST = new Map<string, ScalarTagDefinition<unknown>[]>();
for (const tag of [nullCoreTag, boolCoreTag, intCoreTag, floatCoreTag] as ScalarTagDefinition<unknown>[]) {
  for (const first of tag.implicitFirstChars ?? []) {
    const tags = BY_FIRST.get(first) ?? [];
    tags.push(tag);
    BY_FIRST.set(first, tags);
  }
}
const RESOLVES_ALWAYS = [nullCoreTag, boolCoreTag, intCoreTag, floatCoreTag].some(
  (tag) => tag.implicitFirstChars === null,
);

/** Characters this reader leaves to js-yaml wherever they stand (see the list above). */
const REFUSED = /[\t\r\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/;
/** A key this reader takes: plain text that no core tag reads as anything but a string. */
const KEY = /^[A-Za-z0-9_][A-Za-z0-9_./-]*$/;
/** First characters of a plain scalar that YAML gives another meaning (indicators). */
const INDICATOR = /^[-?:,[\]{}#&*!|>'"%@`]/;

/** Thrown (never escapes) when the file is not of the plain form: the caller declines. */
const DECLINE: unique symbol = Symbol("decline");

const isQuote = (c: number) => c === 39 || c === 34;

/** Whether a character can begin a key this reader takes (KEY). */
const startsKey = (c: number) =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

/** The offset of character `code` in text[from, to), or -1: a search that stops at the line's end. */
function charIn(text: string, code: number, from: number, to: number): number {
  for (let at = from; at < to; at++) if (text.charCodeAt(at) === code) return at;
  return -1;
}

/** The offset of a comment (` #`) in text[from, to), or -1. */
function commentIn(text: string, from: number, to: number): number {
  for (let at = from + 1; at < to; at++)
    if (text.charCodeAt(at) === 35 && text.charCodeAt(at - 1) === 32) return at - 1;
  return -1;
}

/**
 * A YAML 1.2 core float written in digits. One too large to hold (`1e400`) js-yaml reads as text
 * and the `yaml` library as infinity; both readers here decline it, so the `yaml` library reads
 * it and source.ts refuses it with its position, whatever else the file holds.
 */
export const CORE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

/** The value of a plain scalar, as js-yaml resolves it in the core schema. */
function resolvePlain(text: string): unknown {
  const tags = BY_FIRST.get(text[0]!);
  if (tags === undefined) return text;
  for (const tag of tags) {
    const value = tag.resolve(text, false, tag.tagName);
    if (value !== NOT_RESOLVED) return value;
  }
  if (CORE_FLOAT.test(text)) throw DECLINE;
  return text;
}

/** A node of the positions index: its start offset (-1 for an empty value), keyed children. */
export interface Indexed {
  start: number;
  keyStart?: number;
  entries?: Map<string, Indexed>;
  items?: Indexed[];
}

export interface LineRead {
  value: unknown;
  /**
   * The positions index: the same tree quick-yaml.ts builds from events, made as it is walked (a
   * path's mappings and sequences are indexed when a diagnostic first asks for a place in them).
   */
  index(): Indexed;
  /**
   * The top-level keys whose entry (from its key to the next top-level key) holds no `$` in its
   * text. No value of this form is anything but text of its own line (no escapes), so no string
   * under them can hold a `${VAR}`: interpolation need not walk them.
   */
  withoutReferences: ReadonlySet<string>;
}

/** The document as plain data, or undefined when it is not of the plain form this reader takes. */
export function readLines(text: string): LineRead | undefined {
  if (RESOLVES_ALWAYS || REFUSED.test(text)) return undefined;
  const lines = scanLines(text);
  if (lines === undefined || lines.count === 0) return undefined;
  let value: unknown;
  try {
    value = parseDocument(text, lines);
  } catch (error) {
    if (error === DECLINE) return undefined;
    throw error;
  }
  let root: Indexed | undefined;
  return {
    value,
    index: () => (root ??= indexDocument(text, lines)),
    withoutReferences: withoutReferences(text, lines),
  };
}

function withoutReferences(text: string, lines: Lines): Set<string> {
  const keys = new Set<string>();
  let dollar = text.indexOf("$");
  let line = 0;
  while (line < lines.count) {
    const from = lines.start[line]!;
    const key = entryKey(text, from, lines.end[line]!)!;
    line++;
    // Its lines: deeper ones, and the items of a sequence written at the key's indentation.
    while (line < lines.count && (lines.indent[line]! > 0 || isItem(text, lines, line))) line++;
    // The entry's text runs to the next top-level key (comment lines after it included).
    const to = line < lines.count ? lines.start[line]! : text.length;
    if (dollar >= 0 && dollar < from) dollar = text.indexOf("$", from);
    if (dollar < 0 || dollar >= to) keys.add(key);
  }
  return keys;
}

/** The lines that hold content (not blank, not only a comment): indentation, start and end. */
interface Lines {
  count: number;
  indent: Int32Array;
  /** Offset of the first non-space character. */
  start: Int32Array;
  /** Offset of the line's end (its "\n", or the end of the text). */
  end: Int32Array;
}

function scanLines(text: string): Lines | undefined {
  // Typed arrays sized by the number of lines: no growth, and nothing for the collector to copy.
  let size = 1;
  for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", nl + 1)) size++;
  const lines: Lines = {
    count: 0,
    indent: new Int32Array(size),
    start: new Int32Array(size),
    end: new Int32Array(size),
  };
  let at = 0;
  while (at < text.length) {
    let end = text.indexOf("\n", at);
    if (end < 0) end = text.length;
    let first = at;
    while (first < end && text.charCodeAt(first) === 32) first++;
    if (first < end && text.charCodeAt(first) !== 35 /* # */) {
      // `---` and `...` at the start of a line mark documents.
      if (first === at && (text.startsWith("---", at) || text.startsWith("...", at))) {
        const after = text.charCodeAt(at + 3);
        if (at + 3 === end || after === 32) return undefined;
      }
      lines.indent[lines.count] = first - at;
      lines.start[lines.count] = first;
      lines.end[lines.count] = end;
      lines.count++;
    }
    at = end + 1;
  }
  // Exactly `count` long, as arrays were: an index past the last line reads undefined.
  lines.indent = lines.indent.subarray(0, lines.count);
  lines.start = lines.start.subarray(0, lines.count);
  lines.end = lines.end.subarray(0, lines.count);
  return lines;
}

/** Where the value of the entry entryKey last read starts (-1: nothing after its `:`). */
let valueAt = -1;

/** The key of a mapping entry written from `from` (setting valueAt), or undefined: not an entry. */
function entryKey(text: string, from: number, lineEnd: number): string | undefined {
  const colon = charIn(text, 58 /* : */, from, lineEnd);
  if (colon < 0) return undefined;
  const after = colon + 1;
  if (after < lineEnd && text.charCodeAt(after) !== 32) return undefined;
  const key = text.slice(from, colon);
  if (!KEY.test(key) || key === "__proto__" || resolvePlain(key) !== key) throw DECLINE;
  let at = after;
  while (at < lineEnd && text.charCodeAt(at) === 32) at++;
  valueAt = at >= lineEnd || text.charCodeAt(at) === 35 /* # */ ? -1 : at;
  return key;
}

/** Where an item's content starts after its `-`, or -1 when nothing follows on its line. */
function itemContent(text: string, dash: number, lineEnd: number): number {
  let at = dash + 1;
  while (at < lineEnd && text.charCodeAt(at) === 32) at++;
  return at >= lineEnd || text.charCodeAt(at) === 35 ? -1 : at;
}

/** Whether content line `line` is a sequence item (`- x`, or `-` alone). */
function isItem(text: string, lines: Lines, line: number): boolean {
  const s = lines.start[line]!;
  return text.charCodeAt(s) === 45 && (s + 1 === lines.end[line] || text.charCodeAt(s + 1) === 32);
}

/** The text of the quoted scalar readQuoted last read. */
let quotedText = "";

/**
 * A one-line quoted scalar opened at `from` (`'it''s'`, or `"..."` without escapes): its text in
 * quotedText; returns the offset after its closing quote.
 */
function readQuoted(text: string, from: number, lineEnd: number): number {
  const quote = text.charCodeAt(from);
  let close = from + 1;
  let content = "";
  for (;;) {
    const next = charIn(text, quote, close, lineEnd);
    if (next < 0) throw DECLINE;
    if (quote === 39 && text.charCodeAt(next + 1) === 39) {
      content += text.slice(close, next + 1);
      close = next + 2;
      continue;
    }
    content += text.slice(close, next);
    close = next + 1;
    break;
  }
  if (quote === 34 && content.includes("\\")) throw DECLINE;
  quotedText = content;
  return close;
}

/** After a value that ends at `at`: spaces, then nothing or a comment (a `#` after a space). */
function expectLineEnd(text: string, at: number, lineEnd: number): void {
  let after = at;
  while (after < lineEnd && text.charCodeAt(after) === 32) after++;
  if (after < lineEnd && (after === at || text.charCodeAt(after) !== 35)) throw DECLINE;
}

function skipSpaces(text: string, at: number, lineEnd: number): number {
  while (at < lineEnd && text.charCodeAt(at) === 32) at++;
  return at;
}

/**
 * A one-line flow sequence opened at `from` whose items are plain or quoted scalars (`[a, "b", 1]`,
 * `[]`): its items, and each item's offset pushed onto `offsets` when given. A nested collection,
 * an empty item (`[a,,b]`, `[a,]`), a `:` or a comment inside declines.
 */
function readFlow(text: string, from: number, lineEnd: number, offsets: number[] | undefined): unknown[] {
  const items: unknown[] = [];
  let at = skipSpaces(text, from + 1, lineEnd);
  if (text.charCodeAt(at) === 93 /* ] */) {
    expectLineEnd(text, at + 1, lineEnd);
    return items;
  }
  for (;;) {
    if (at >= lineEnd) throw DECLINE;
    const c = text.charCodeAt(at);
    offsets?.push(at);
    let stop: number;
    if (isQuote(c)) {
      stop = readQuoted(text, at, lineEnd);
      items.push(quotedText);
    } else {
      // `-` starts a plain scalar when a non-space, non-indicator follows (`-1`, `-x`).
      if (INDICATOR.test(text[at]!) && (c !== 45 || " ,[]{}".includes(text[at + 1] ?? " "))) throw DECLINE;
      stop = at;
      for (; stop < lineEnd; stop++) {
        const d = text.charCodeAt(stop);
        if (d === 44 /* , */ || d === 93 /* ] */) break;
        if (d === 91 || d === 123 || d === 125 || d === 58 /* : */) throw DECLINE;
        if (d === 35 && text.charCodeAt(stop - 1) === 32) throw DECLINE;
      }
      let last = stop;
      while (text.charCodeAt(last - 1) === 32) last--;
      items.push(resolvePlain(text.slice(at, last)));
    }
    at = skipSpaces(text, stop, lineEnd);
    const separator = text.charCodeAt(at);
    if (separator === 93) {
      expectLineEnd(text, at + 1, lineEnd);
      return items;
    }
    if (separator !== 44) throw DECLINE;
    at = skipSpaces(text, at + 1, lineEnd);
    const next = text.charCodeAt(at);
    if (next === 93 || next === 44) throw DECLINE;
  }
}

/** The index node of a value written on its line from `at`: a scalar, or a flow collection and its items. */
function inlineNode(text: string, at: number, lineEnd: number): Indexed {
  const c = text.charCodeAt(at);
  if (c === 91) {
    const offsets: number[] = [];
    readFlow(text, at, lineEnd, offsets);
    return { start: at, items: offsets.map((offset) => ({ start: offset })) };
  }
  if (c === 123) return { start: at, entries: new Map() };
  return { start: at };
}

/** The document's data; throws DECLINE where it leaves the plain form. */
function parseDocument(text: string, lines: Lines): unknown {
  const { count, indent, start, end } = lines;
  let li = 0;

  /** A scalar written from `from` to the end of line `li`. */
  const scalar = (from: number): unknown => {
    const lineEnd = end[li]!;
    const c = text.charCodeAt(from);
    if (isQuote(c)) {
      expectLineEnd(text, readQuoted(text, from, lineEnd), lineEnd);
      return quotedText;
    }
    if (c === 91 /* [ */) return readFlow(text, from, lineEnd, undefined);
    if (c === 123 /* { */) {
      // `{}` alone: an empty mapping.
      if (text.charCodeAt(from + 1) !== 125) throw DECLINE;
      expectLineEnd(text, from + 2, lineEnd);
      return {};
    }
    if (INDICATOR.test(text[from]!)) {
      // `-` starts a plain scalar when a non-space follows (`-1`, `-.inf`, `-x`).
      if (c !== 45 /* - */ || from + 1 >= lineEnd || text.charCodeAt(from + 1) === 32) throw DECLINE;
    }
    const comment = commentIn(text, from, lineEnd);
    let stop = comment >= 0 ? comment : lineEnd;
    while (text.charCodeAt(stop - 1) === 32) stop--;
    const written = text.slice(from, stop);
    // `a: b: c` is not a plain scalar; `b:c` is.
    if (written.includes(": ") || written.endsWith(":")) throw DECLINE;
    const value = resolvePlain(written);
    if (value !== written) return value;
    // One string per distinct text: a generated file repeats its values (`provider: provider_a`,
    // `type: cloud`) thousands of times, and each copy would live as long as the document.
    const known = texts.get(written);
    if (known !== undefined) return known;
    texts.set(written, written);
    return written;
  };
  const texts = new Map<string, string>();

  /**
   * The value of an entry or item whose line `li` has nothing after its `:` or `-`: a block nested
   * deeper (or, for a mapping entry, a sequence at the same indentation), or null.
   */
  const nested = (parentIndent: number, sequenceAtSameIndent: boolean): unknown => {
    li++;
    if (li < count) {
      const next = indent[li]!;
      if (next > parentIndent) return isItem(text, lines, li) ? sequence(next) : mapping(next, start[li]!);
      if (next === parentIndent && sequenceAtSameIndent && isItem(text, lines, li)) return sequence(next);
    }
    return null;
  };

  /**
   * A block mapping whose entries stand at `column`; its first entry starts at `from` (mid-line
   * for a mapping in a sequence item: `- name: x`).
   */
  const mapping = (column: number, from: number): Record<string, unknown> => {
    const value: Record<string, unknown> = {};
    let at = from;
    for (;;) {
      const key = entryKey(text, at, end[li]!);
      if (key === undefined || Object.hasOwn(value, key)) throw DECLINE;
      if (valueAt < 0) value[key] = nested(column, true);
      else {
        value[key] = scalar(valueAt);
        li++;
      }
      if (li >= count || indent[li]! < column) return value;
      if (indent[li]! > column) throw DECLINE;
      at = start[li]!;
    }
  };

  /** A block sequence whose `-` stand at `column`. */
  const sequence = (column: number): unknown[] => {
    const value: unknown[] = [];
    for (;;) {
      const dash = start[li]!;
      const at = itemContent(text, dash, end[li]!);
      if (at < 0) value.push(nested(column, false));
      else if (text.charCodeAt(at) === 45 && (at + 1 === end[li] || text.charCodeAt(at + 1) === 32))
        throw DECLINE;
      else if (startsKey(text.charCodeAt(at)) && entryKey(text, at, end[li]!) !== undefined)
        value.push(mapping(at - (dash - column), at));
      else {
        value.push(scalar(at));
        li++;
      }
      // A line at this indentation that is not an item ends the sequence: it is the next entry of
      // the mapping the sequence is the value of (`key:` then `- item` at the key's indentation);
      // the caller refuses it otherwise.
      if (li >= count || indent[li]! < column || !isItem(text, lines, li)) return value;
      if (indent[li]! > column) throw DECLINE;
    }
  };

  if (indent[0] !== 0 || isItem(text, lines, 0)) throw DECLINE;
  const root = mapping(0, start[0]!);
  if (li < count) throw DECLINE;
  return root;
}

/**
 * The positions index of a document parseDocument took, built lazily: a mapping's entries and a
 * sequence's items are read when first asked for, and a nested block is stepped over by its
 * indentation until then. Offsets are where js-yaml's events put them: a mapping at its first key,
 * a sequence at its first `-`, a scalar at its first character (a quoted one at its quote), an
 * empty value nowhere (-1).
 */
function indexDocument(text: string, lines: Lines): Indexed {
  const { count, indent, start, end } = lines;

  const lazyMapping = (line: number, column: number, from: number): Indexed => {
    let entries: Map<string, Indexed> | undefined;
    return {
      start: from,
      get entries() {
        entries ??= mappingEntries(line, column, from);
        return entries;
      },
    };
  };

  const lazySequence = (line: number, column: number): Indexed => {
    let items: Indexed[] | undefined;
    return {
      start: start[line]!,
      get items() {
        items ??= sequenceItems(line, column);
        return items;
      },
    };
  };

  /** The first line after `line` that is not deeper than `column` (nor, with `items`, an item at it). */
  const after = (line: number, column: number, items: boolean): number => {
    let next = line + 1;
    while (
      next < count &&
      (indent[next]! > column || (items && indent[next] === column && isItem(text, lines, next)))
    )
      next++;
    return next;
  };

  /** The node nested under line `line` (an entry or item with nothing after its `:` or `-`), and the line after it. */
  const nested = (line: number, column: number, sequenceAtSameIndent: boolean): [Indexed, number] => {
    const next = line + 1;
    if (next < count && indent[next]! > column) {
      const node = isItem(text, lines, next)
        ? lazySequence(next, indent[next]!)
        : lazyMapping(next, indent[next]!, start[next]!);
      return [node, after(line, column, false)];
    }
    if (next < count && sequenceAtSameIndent && indent[next] === column && isItem(text, lines, next))
      return [lazySequence(next, column), after(line, column, true)];
    return [{ start: -1 }, next];
  };

  const mappingEntries = (first: number, column: number, from: number): Map<string, Indexed> => {
    const entries = new Map<string, Indexed>();
    let line = first;
    let at = from;
    for (;;) {
      const key = entryKey(text, at, end[line]!)!;
      let node: Indexed;
      if (valueAt < 0) [node, line] = nested(line, column, true);
      else {
        node = inlineNode(text, valueAt, end[line]!);
        line++;
      }
      node.keyStart = at;
      entries.set(key, node);
      if (line >= count || indent[line] !== column) return entries;
      at = start[line]!;
    }
  };

  const sequenceItems = (first: number, column: number): Indexed[] => {
    const items: Indexed[] = [];
    let line = first;
    for (;;) {
      const dash = start[line]!;
      const at = itemContent(text, dash, end[line]!);
      let node: Indexed;
      if (at < 0) [node, line] = nested(line, column, false);
      else {
        node =
          startsKey(text.charCodeAt(at)) && entryKey(text, at, end[line]!) !== undefined
            ? lazyMapping(line, at - (dash - column), at)
            : inlineNode(text, at, end[line]!);
        line = after(line, column, false);
      }
      items.push(node);
      if (line >= count || indent[line] !== column || !isItem(text, lines, line)) return items;
    }
  };

  return lazyMapping(0, 0, start[0]!);
}
