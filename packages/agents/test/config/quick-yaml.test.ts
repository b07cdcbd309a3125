// The quick readers (the line reader for plain block files, then js-yaml's events) must read every
// file they take exactly as the `yaml` library does, and decline the rest; loadConfig must not
// parse a valid file with positions at all.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from "yaml";
import type { SourcePos } from "../../src/config/diagnostics.js";
import { loadConfigText } from "../../src/config/index.js";
import { interpolate } from "../../src/config/interpolate.js";
import { readLines } from "../../src/config/line-yaml.js";
import { readQuickly } from "../../src/config/quick-yaml.js";
import { type Path, YamlSource } from "../../src/config/source.js";

const root = fileURLToPath(new URL("../../../../", import.meta.url));

/** The `yaml` library's reading, as loadConfig made it before the quick reader: data, or its errors. */
function full(text: string): { value?: unknown; errors: string[] } {
  const doc = parseDocument(text, { uniqueKeys: false, merge: true, prettyErrors: false });
  if (doc.errors.length > 0) return { errors: doc.errors.map((e) => e.message) };
  return { value: doc.toJS({ maxAliasCount: 1000 }), errors: [] };
}

/** Same value, same own keys in the same order, `__proto__` as a key rather than a prototype. */
function expectSame(quick: unknown, slow: unknown): void {
  expect(quick).toStrictEqual(slow);
  expect(JSON.stringify(quick)).toBe(JSON.stringify(slow));
}

// One row per way a plain scalar can resolve in the YAML 1.2 core schema, and per way the two
// readers could part: "same" rows must be taken and read alike, "declines" rows handed to `yaml`.
const ROWS: Array<[string, "same" | "declines"]> = [
  ["a: 0o17", "same"],
  ["a: 017", "same"],
  ["a: 0x1F", "same"],
  ["a: -0x1F", "same"],
  ["a: 0o8", "same"],
  ["a: 0b101", "same"],
  ["a: 1_000", "same"],
  ["a: +12", "same"],
  ["a: -0", "same"],
  ["a: 00012", "same"],
  ["a: 12345678901234567890", "same"],
  ["a: 1e3", "same"],
  ["a: 1E+3", "same"],
  ["a: +0.5e-3", "same"],
  ["a: 1.5e", "same"],
  ["a: .5", "same"],
  ["a: 1.", "same"],
  ["a: .", "same"],
  ["a: .inf", "same"],
  ["a: -.Inf", "same"],
  ["a: +.INF", "same"],
  ["a: .NaN", "same"],
  ["a: yes", "same"],
  ["a: on", "same"],
  ["a: True", "same"],
  ["a: FALSE", "same"],
  ["a: tRue", "same"],
  ["a: ~", "same"],
  ["a: Null", "same"],
  ["a:", "same"],
  ["a: 2024-01-01", "same"],
  ["a: 12:30", "same"],
  ["a: '1'", "same"],
  ['a: "\\x41\\u263A\\t\\/"', "same"],
  ["a: 'it''s'", "same"],
  ["a: '#x' # comment", "same"],
  ["a: |\n  x\n\n", "same"],
  ["a: |+\n  x\n\n", "same"],
  ["a: >-\n  x\n  y\n", "same"],
  ["a: [1, 2, {b: c}]", "same"],
  ["a: {b, c: }", "same"],
  ["a: [b: c]", "same"],
  ["a:\n  - b\n  -\n  - c", "same"],
  ["a: !!str 12", "same"],
  ["1: x", "same"],
  ["true: x", "same"],
  ["__proto__: {b: 1}", "same"],
  ["<<: {a: 1}\nb: 2", "same"],
  ["a: 1\n<<: {a: 2}", "same"],
  ["\ufeffa: 1", "same"],
  ["a: 1\r\nb: 2\r\n", "same"],
  ["--- \na: 1\n...\n", "same"],
  ["a: &x 1\nb: *x", "declines"],
  ["%YAML 1.1\n---\na: yes", "declines"],
  ["a: !!float 1", "declines"],
  ["a: !!int '12'", "declines"],
  ["a: !custom x", "declines"],
  ["a: !!binary aGk=", "declines"],
  ["~: x", "declines"],
  ["null: x", "declines"],
  ["? [a]\n: x", "declines"],
  ["a: 1\na: 2", "declines"],
  ["a: b: c", "declines"],
  ["a: [a, b", "declines"],
  ["a: 1\n---\nb: 2", "declines"],
  ["", "declines"],
];

/** A valid file: one provider whose key comes from `${C_KEY}`, one environment. */
const VALID_LINES = [
  'version: "1"',
  "providers:",
  "  provider_c:",
  "    api_key: ${C_KEY}",
  "environments:",
  "  dev:",
  "    config:",
  "      type: cloud",
];

describe("the quick YAML reader", () => {
  it.each(ROWS)("%j: %s", (text, expected) => {
    expectRow(readQuickly(text), text, expected);
  });

  const files = [join(root, "examples"), join(root, "packages/agents/test/fixtures")].flatMap(yamlFiles);
  it.each(files.map((f) => [relative(root, f), f]))("reads %s as the yaml library does", (_name, file) => {
    const text = readFileSync(file, "utf8");
    const slow = full(text);
    const quick = readQuickly(text);
    if (slow.errors.length > 0) {
      expect(quick).toBeUndefined();
      return;
    }
    // Files with anchors are the `yaml` library's alone; every other file is taken.
    if (/&[\w-]+/.test(text)) {
      if (quick) expectSame(quick.value, slow.value);
      return;
    }
    expect(quick).toBeDefined();
    expectSame(quick!.value, slow.value);
  });

  // an empty key has no offset of its own in the parser's events (only its tag has one): its
  // position comes from the yaml library, never from the missing offset (found by the loader fuzz)
  it.each(["a:\n  b: 1\n  !!str :\n    c: 2\n", "a: 1\n!!str : 2\n", "a:\n  d: [1]\n  !!str : x\n"])(
    "places the empty key of %j where the yaml library does",
    (text) => {
      expect(readQuickly(text)).toBeDefined();
      expectPlacedAsYaml(text);
    },
  );

  it("takes generated documents as the yaml library reads them, and declines what it refuses", () => {
    let taken = 0;
    let runs = 0;
    fc.assert(
      fc.property(documentArbitrary, (text) => {
        runs++;
        const quick = readQuickly(text);
        if (!quick) return;
        taken++;
        const slow = full(text);
        expect(slow.errors).toEqual([]);
        expectSame(quick.value, slow.value);
      }),
      { numRuns: 400 },
    );
    // The property holds trivially for a reader that declines everything: most documents are taken.
    expect(taken / runs).toBeGreaterThan(0.5);
  });

  it("places every value and key of generated documents where the yaml library does", () => {
    fc.assert(
      fc.property(documentArbitrary, (text) => {
        if (!readQuickly(text)) return;
        // every value and key, and a path that goes on past what exists at the deepest node that does
        expectPlacedAsYaml(text);
      }),
      { numRuns: 300 },
    );
  });
});

describe("the line reader (plain block files)", () => {
  it.each(PLAIN_ROWS)("%j: %s", (text, expected) => {
    expectRow(readLines(text), text, expected);
    if (expected !== "declines") expectPlacedAsYaml(text);
  });

  it("takes generated plain block documents, reading and placing them as the yaml library does", () => {
    let taken = 0;
    let runs = 0;
    fc.assert(
      fc.property(plainDocumentArbitrary, (text) => {
        runs++;
        const plain = readLines(text);
        const slow = full(text);
        if (!plain) {
          // Declined only where the generator wrote what YAML refuses (a comment line's indentation
          // can end a block early).
          expect(slow.errors).not.toEqual([]);
          return;
        }
        taken++;
        expect(slow.errors).toEqual([]);
        expectSame(plain.value, slow.value);
        expectPlacedAsYaml(text);
        // Interpolation skips these entries: not one of their strings may hold a `$`.
        const data = plain.value as Record<string, unknown>;
        for (const key of plain.withoutReferences) expect(JSON.stringify(data[key])).not.toContain("$");
      }),
      { numRuns: 100 },
    );
    expect(taken / runs).toBeGreaterThan(0.7);
  });

  it.each([
    ["a: 1\nb: ${X}\nc: 2\n", ["a", "c"]],
    ["a:\n  x: 1\n  y: $z\nb: 1\n", ["b"]],
    ["a:\n  x: 1\n# $ in a comment\nb: 1\n", ["b"]],
    ["a: x\nb:\n- '$${x}'\n", ["a"]],
    ["a: x$\n", []],
  ])("knows which top-level entries of %j hold no `$`", (text, keys) => {
    expect([...readLines(text)!.withoutReferences]).toEqual(keys);
  });

  it("substitutes `${VAR}` under the top-level entries whose text holds a `$`, skipping the rest", () => {
    const text = [...VALID_LINES, "agents:", "  a:", "    model: m", "    instructions: ${MISSING}"].join(
      "\n",
    );
    const result = loadConfigText(text, "/tmp/agents.yaml", { env: { C_KEY: "k" } });
    expect(result.source?.withoutReferences).toEqual(new Set(["version", "environments"]));
    expect(result.diagnostics).toMatchObject([{ code: "AGENTS1010", line: 12, col: 19 }]);
    expect(result.document?.providers).toEqual({ provider_c: { api_key: "k" } });
    const written = result.source!.data as Record<string, unknown>;
    expect(result.document!.environments).toBe(written.environments);
  });

  it("does not walk the top-level entries whose text holds no `$`", () => {
    const source = new YamlSource("/tmp/agents.yaml", "a:\n  b: 1\nc: ${X}\n");
    const a = (source.data as Record<string, Record<string, unknown>>).a!;
    Object.defineProperty(a, "b", {
      enumerable: true,
      get: () => {
        throw new Error("walked");
      },
    });
    const result = interpolate(source, () => "x", []);
    expect((result.value as Record<string, unknown>).c).toBe("x");
  });

  it("takes the 5,000-resource file the scale bench writes", () => {
    const lines = ['version: "1"', "providers:", "  provider_c:", "    api_key: sim-key", "agents:"];
    for (let i = 0; i < 50; i++)
      lines.push(
        `  c${i}:`,
        "    provider: provider_c",
        "    model: claude-sonnet-4-5",
        `    instructions: Agent ${i}.`,
      );
    const text = `${lines.join("\n")}\n`;
    const plain = readLines(text);
    expect(plain).toBeDefined();
    expectSame(plain!.value, full(text).value);
  });
});

describe("loadConfig", () => {
  const valid = VALID_LINES.join("\n");

  it("does not parse a valid file with positions", () => {
    const result = loadConfigText(valid, "/tmp/agents.yaml", { env: { C_KEY: "k" } });
    expect(result.diagnostics).toEqual([]);
    expect(result.config?.environments?.dev).toBeDefined();
    expect(result.source?.parsedWithPositions).toBe(false);
  });

  it("places a finding in a file it read quickly without parsing it again", () => {
    const result = loadConfigText(valid, "/tmp/agents.yaml", { env: {} });
    expect(result.diagnostics).toMatchObject([{ code: "AGENTS1010", line: 4, col: 14 }]);
    expect(result.source?.parsedWithPositions).toBe(false);
  });

  it("gives each finding's source line, splitting the text once however many findings there are", () => {
    const text = `${valid.replaceAll("\n", "\r\n")}\r\n`;
    const result = loadConfigText(text, "/tmp/agents.yaml", { env: {} });
    const source = result.source!;
    const split = vi.spyOn(String.prototype, "split");
    let lines: string[];
    let splits: number;
    try {
      lines = Array.from({ length: 200 }, (_, i) => source.lineText((i % 10) + 1));
      splits = split.mock.calls.filter(([separator]) => separator instanceof RegExp).length;
    } finally {
      split.mockRestore();
    }
    expect(lines.slice(0, 10)).toEqual([...valid.split("\n"), "", ""]);
    // Once in all: a 5,000-resource file with a warning per resource split its 25,000 lines per warning.
    expect(splits).toBeLessThanOrEqual(1);
  });

  it("gives every line as splitting the text at YAML's line breaks (/\\r\\n|\\r|\\n/) does", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "b: 1", "\r", "\n", "\r\n", " "), { maxLength: 12 }),
        (parts) => {
          const text = parts.join("");
          const source = new YamlSource("/tmp/agents.yaml", text);
          const split = text.split(/\r\n|\r|\n/);
          for (let line = 0; line <= split.length + 1; line++)
            expect(source.lineText(line)).toBe(split[line - 1] ?? "");
        },
      ),
      { numRuns: 300 },
    );
  });

  it("reads a file with aliases through the yaml library, substituting a shared value once", () => {
    const text = `${valid}\n  staging:\n    config: &cloud\n      type: cloud\n      packages: {pip: ["\${PKG}"]}\n  prod:\n    config: *cloud\n`;
    const unset = loadConfigText(text, "/tmp/agents.yaml", { env: { C_KEY: "k" } });
    expect(unset.diagnostics.filter((d) => d.code === "AGENTS1010")).toHaveLength(1);
    const set = loadConfigText(text, "/tmp/agents.yaml", { env: { C_KEY: "k", PKG: "httpx" } });
    expect(set.diagnostics).toEqual([]);
    expect(set.config?.environments?.prod?.config).toEqual(set.config?.environments?.staging?.config);
    expect(set.config?.environments?.prod?.config).toMatchObject({ packages: { pip: ["httpx"] } });
  });
});

/** Every value and key of `text` placed by YamlSource (the quick readers) where the yaml library has it. */
/** A table row: the reader declines `text`, or takes it with the value the yaml library reads. */
function expectRow(read: { value: unknown } | undefined, text: string, expected: string): void {
  if (expected === "declines") {
    expect(read).toBeUndefined();
    return;
  }
  expect(read).toBeDefined();
  const slow = full(text);
  expect(slow.errors).toEqual([]);
  expectSame(read!.value, slow.value);
}

function expectPlacedAsYaml(text: string): void {
  const source = new YamlSource("/tmp/agents.yaml", text);
  for (const { path, pos, keyPos } of yamlPositions(text)) {
    expect({ path, pos: source.pos(path) }).toEqual({ path, pos });
    expect({ path, keyPos: source.keyPos(path) }).toEqual({ path, keyPos });
    expect(source.pos([...path, "missing"])).toEqual(pos);
  }
}

/** Every path of a document with the position of its value and its key, as the yaml library has them. */
function yamlPositions(text: string): Array<{ path: Path; pos: SourcePos; keyPos: SourcePos }> {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: false, merge: true });
  const at = (offset: number): SourcePos => ({ file: "/tmp/agents.yaml", ...lineCounter.linePos(offset) });
  const out: Array<{ path: Path; pos: SourcePos; keyPos: SourcePos }> = [];
  const walk = (node: unknown, path: Path, keyOffset?: number): void => {
    const offset = (node as { range?: number[] } | null)?.range?.[0];
    if (offset === undefined) return;
    out.push({ path, pos: at(offset), keyPos: at(keyOffset ?? offset) });
    if (isMap(node)) {
      for (const pair of node.items) {
        if (isScalar(pair.key)) walk(pair.value, [...path, String(pair.key.value)], pair.key.range?.[0]);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => {
        walk(item, [...path, i]);
      });
    }
  };
  walk(doc.contents, []);
  return out;
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(entry) ? [path] : [];
  });
}

// ---- generated documents: block and flow collections, every scalar style, comments ----

const PLAIN = [
  "0o17",
  "017",
  "0x1F",
  "1_000",
  "+12",
  "-0",
  "1e3",
  ".5",
  "1.",
  ".inf",
  "-.Inf",
  ".NaN",
  "yes",
  "on",
  "True",
  "FALSE",
  "~",
  "Null",
  "2024-01-01",
  "0b101",
  "12:30",
  "3.14",
  "-2",
  "0",
  "x",
  "hello world",
  "a-b",
  "foo.bar",
  "${VAR}",
  "$${x}",
  "claude-sonnet-4-5",
  "0 9 * * 1-5",
];
const KEYS = ["a", "b", "name", "type", "1", "true", "__proto__", "x-ext", "0x1F", "on"];

type Tree =
  | { scalar: string }
  | { map: Array<[string, Tree]>; flow: boolean }
  | { seq: Tree[]; flow: boolean };

const literal = fc
  .tuple(
    fc.constantFrom("|", "|-", "|+", ">", ">-", ">+"),
    fc.array(fc.stringMatching(/^[a-z ${}]{0,10}$/), { minLength: 1, maxLength: 3 }),
  )
  .map(([style, lines]) => ({ style, lines }));

/** A block scalar is written as its header, a newline and its lines (rendered under its key). */
const blockScalar = literal.map(({ style, lines }) => `${style}\n${lines.join("\n")}`);
const isBlockScalar = (s: string) => /^[|>][-+]?\n/.test(s);

const scalar: fc.Arbitrary<string> = fc.oneof(
  blockScalar,
  fc.constantFrom(...PLAIN),
  fc.string({ maxLength: 12 }).map((s) => JSON.stringify(s)),
  fc.string({ maxLength: 12 }).map((s) => `'${s.replaceAll("'", "''")}'`),
);

const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalar.map((s) => ({ scalar: s })),
    fc.record({
      map: fc.uniqueArray(fc.tuple(fc.constantFrom(...KEYS), tie("tree")), {
        maxLength: 4,
        selector: ([k]) => k,
      }),
      flow: fc.boolean(),
    }),
    fc.record({ seq: fc.array(tie("tree"), { maxLength: 4 }), flow: fc.boolean() }),
  ),
}));

function flow(node: Tree): string {
  if ("scalar" in node)
    return node.scalar.includes(" ") || /^[-?:,[\]{}#&*!|>'"%@`]/.test(node.scalar)
      ? JSON.stringify(node.scalar)
      : node.scalar;
  if ("map" in node) return `{${node.map.map(([k, v]) => `${k}: ${flow(v)}`).join(", ")}}`;
  return `[${node.seq.map(flow).join(", ")}]`;
}

function block(node: Tree, indent: string, comment: boolean): string[] {
  const tail = comment ? " # note" : "";
  if ("map" in node) {
    if (node.flow || node.map.length === 0) return [`${indent}${flow(node)}${tail}`];
    return node.map.flatMap(([k, v]) => {
      if ("scalar" in v && isBlockScalar(v.scalar)) return [`${indent}${k}: ${blockLines(v.scalar, indent)}`];
      if ("scalar" in v) return [`${indent}${k}: ${v.scalar}${tail}`];
      if (v.flow || ("map" in v ? v.map.length === 0 : v.seq.length === 0))
        return [`${indent}${k}: ${flow(v)}`];
      return [`${indent}${k}:`, ...block(v, `${indent}  `, comment)];
    });
  }
  if ("seq" in node) {
    if (node.flow || node.seq.length === 0) return [`${indent}${flow(node)}${tail}`];
    return node.seq.flatMap((v) => {
      if ("scalar" in v && isBlockScalar(v.scalar)) return [`${indent}- ${blockLines(v.scalar, indent)}`];
      if ("scalar" in v) return [`${indent}- ${v.scalar}${tail}`];
      return [`${indent}-`, ...block(v, `${indent}  `, comment)];
    });
  }
  return [`${indent}${isBlockScalar(node.scalar) ? JSON.stringify(node.scalar) : node.scalar}${tail}`];
}

/** A block scalar's header (with a comment now and then) and its lines, indented under it. */
function blockLines(scalar: string, indent: string): string {
  const [header, ...lines] = scalar.split("\n");
  const comment = lines.length === 2 ? "  # a | b" : "";
  return [`${header}${comment}`, ...lines.map((l) => `${indent}  ${l}`)].join("\n");
}

const documentArbitrary = fc
  .tuple(
    fc.uniqueArray(fc.tuple(fc.constantFrom(...KEYS), tree), {
      minLength: 1,
      maxLength: 5,
      selector: ([k]) => k,
    }),
    fc.boolean(),
    fc.option(literal),
    fc.boolean(),
    fc.boolean(),
  )
  .map(([entries, comment, text, crlf, bom]) => {
    const lines = block({ map: entries, flow: false }, "", comment);
    if (text) lines.push(`text: ${text.style}`, ...text.lines.map((l) => `  ${l}`));
    return `${bom ? "\ufeff" : ""}${lines.join(crlf ? "\r\n" : "\n")}\n`;
  });

// ---- the line reader's form: block collections of plain and one-line quoted scalars ----

// One row per form the line reader takes ("same": read as the yaml library reads it) and per form
// it leaves to js-yaml ("declines").
const PLAIN_ROWS: Array<[string, "same" | "declines"]> = [
  ["a: 1\nb: x y\nc: -2\nd: .5\ne: ~\nf: true\ng: on\nh: 0x1F\ni: 12:30", "same"],
  ["a:\n  b:\n    c: 1\n  d: 2\ne: 3", "same"],
  ["a:\n- x\n- y\nb: 1", "same"],
  ["a:\n  - x\n  -\n  - - 1", "declines"],
  ["a:\n  - b: 1\n    c: 2\n  - d: 3\n  -\n    e: 4", "same"],
  ["a:\n  - b:\n    - 1\n    c: 2", "same"],
  ["a:   1   # c\n# whole line\n   # indented comment\n\nb: 'x # y'  # c", "same"],
  ["a: 'it''s'\nb: \"q 'x'\"\nc: ''\nd: \"\"", "same"],
  ["a:\nb: # c\nc:", "same"],
  ["a: http://h:80/x\nb: ${VAR}\nc: $${x}\nd: x:y\ne: 0 9 * * 1-5", "same"],
  ["a: -x\nb: x-\nc: a,b\nd: a]b", "same"],
  ["a: \u00e9t\u00e9 \u2192 \ud83d\ude00", "same"],
  ["x-ext: 1\nagent.v2: 2\na/b: 3\nA_1: 4", "same"],
  ["a: b: c", "declines"],
  ["a: x\n  y", "declines"],
  ["a:\n  b: 1\n c: 2", "declines"],
  ["a: 1\na: 2", "declines"],
  ["a: |\n  x", "declines"],
  ["a: >\n  x", "declines"],
  ["a: [1, true, x y, 'q, r', \"s]\", -x]  # c\nb: []\nc: [ ]\nd: {}\ne:\n- [a]\n- []", "same"],
  ["a: [x]# c", "declines"],
  ["a: [a, [b]]", "declines"],
  ["a: [a: b]", "declines"],
  ["a: [${V}]", "declines"],
  ["a: [a,]", "declines"],
  ["a: [a,,b]", "declines"],
  ["a: [a #c]", "declines"],
  ["a: [a,\n  b]", "declines"],
  ["a: [a] b", "declines"],
  ["a: {b: 1}", "declines"],
  ["a: { }", "declines"],
  ["a: &x 1", "declines"],
  ["a: *x", "declines"],
  ["a: !!str 1", "declines"],
  ['a: "x\\ny"', "declines"],
  ["a: 'x\n  y'", "declines"],
  ["a: 'x' y", "declines"],
  ["'a': 1", "declines"],
  ["a : 1", "declines"],
  ["1: x", "declines"],
  ["true: x", "declines"],
  ["null: x", "declines"],
  ["__proto__: x", "declines"],
  ["<<: {a: 1}", "declines"],
  ["? a\n: 1", "declines"],
  ["a:\tb", "declines"],
  ["a: 1\r\nb: 2", "declines"],
  ["\ufeffa: 1", "declines"],
  ["a: x\u2028y", "declines"],
  ["---\na: 1", "declines"],
  ["a: 1\n...", "declines"],
  ["- a", "declines"],
  ["a", "declines"],
  ["  a: 1", "declines"],
  ["# only a comment", "declines"],
  ["", "declines"],
];

const PLAIN_KEYS = ["a", "b", "name", "type", "x-ext", "on", "agent-1", "v1.2", "a/b"];
const PLAIN_SCALARS = [
  ...PLAIN.filter((p) => p !== "$${x}"),
  "$${x}",
  "'quoted # not a comment'",
  "'it''s'",
  '"double: quoted"',
  "''",
  "http://127.0.0.1:8080/x",
  "-x",
  "a, b",
];

type PlainTree =
  | { scalar: string | null }
  | { flow: string[] }
  | { map: Array<[string, PlainTree]> }
  | { seq: PlainTree[] };

/** Scalars a one-line flow sequence may hold (no `:`, `,` or brackets in a plain one). */
const FLOW_SCALARS = PLAIN_SCALARS.filter((p) => !/[:,[\]{}]/.test(p) || /^['"]/.test(p));

const { plainTree } = fc.letrec<{ plainTree: PlainTree }>((tie) => ({
  plainTree: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.option(fc.constantFrom(...PLAIN_SCALARS), { freq: 8 }).map((scalar) => ({ scalar })),
    fc.array(fc.constantFrom(...FLOW_SCALARS), { maxLength: 3 }).map((flow) => ({ flow })),
    fc.record({
      map: fc.uniqueArray(fc.tuple(fc.constantFrom(...PLAIN_KEYS), tie("plainTree")), {
        minLength: 1,
        maxLength: 4,
        selector: ([k]) => k,
      }),
    }),
    fc.record({ seq: fc.array(tie("plainTree"), { minLength: 1, maxLength: 3 }) }),
  ),
}));

interface PlainStyle {
  comment: boolean;
  /** `- key: value` on the dash's line rather than under it (with a step of 2 or more: after `- `). */
  compact: boolean;
  /** A sequence under a key at the key's own indentation. */
  sameIndent: boolean;
  step: string;
}

function plainBlock(node: PlainTree, indent: string, style: PlainStyle): string[] {
  const tail = style.comment ? "  # note" : "";
  const inline = (v: PlainTree) => {
    if ("flow" in v) return `[${v.flow.join(", ")}]${tail}`;
    if ("scalar" in v) return v.scalar === null ? tail.trimStart() : `${v.scalar}${tail}`;
    return null;
  };
  if ("map" in node)
    return node.map.flatMap(([k, v]) => {
      const one = inline(v);
      if (one !== null) return [`${indent}${k}:${one ? ` ${one}` : ""}`];
      const childIndent = "seq" in v && style.sameIndent ? indent : `${indent}${style.step}`;
      return [`${indent}${k}:`, ...plainBlock(v, childIndent, style)];
    });
  if ("seq" in node)
    return node.seq.flatMap((v) => {
      const one = inline(v);
      if (one !== null) return [`${indent}-${one ? ` ${one}` : ""}`];
      const inner = plainBlock(v, `${indent}${style.step}`, style);
      if (style.compact && "map" in v && style.step.length >= 2)
        return [`${indent}- ${inner[0]!.slice(indent.length + style.step.length)}`, ...inner.slice(1)];
      return [`${indent}-`, ...inner];
    });
  return [`${indent}${"scalar" in node ? (node.scalar ?? "") : `[${node.flow.join(", ")}]`}`];
}

const plainDocumentArbitrary = fc
  .tuple(
    fc.uniqueArray(fc.tuple(fc.constantFrom(...PLAIN_KEYS), plainTree), {
      minLength: 1,
      maxLength: 5,
      selector: ([k]) => k,
    }),
    fc.record({
      comment: fc.boolean(),
      compact: fc.boolean(),
      sameIndent: fc.boolean(),
      step: fc.constantFrom("  ", "    ", " "),
    }),
    fc.boolean(),
  )
  .map(([entries, style, commentLines]) => {
    const lines = plainBlock({ map: entries }, "", style);
    const withComments = commentLines
      ? lines.flatMap((l, i) => (i % 3 === 1 ? ["   # a comment line", "", l] : [l]))
      : lines;
    return `${withComments.join("\n")}\n`;
  });
