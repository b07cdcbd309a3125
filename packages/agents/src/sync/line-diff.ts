// A unified line diff for `agents sync --dry-run`. agents.yaml files are small (hundreds of
// lines), so a plain longest-common-subsequence table is fast enough and easy to trust.

type Op = { kind: " " | "-" | "+"; line: string; a: number; b: number };

function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

function lineOps(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  // lcs[i][j] = length of the common subsequence of a[i..] and b[j..]
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) ops.push({ kind: " ", line: a[i++]!, a: i, b: ++j });
    // On a tie the removal goes first, as `diff -u` prints a replaced line.
    else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!))
      ops.push({ kind: "-", line: a[i++]!, a: i, b: j });
    else ops.push({ kind: "+", line: b[j++]!, a: i, b: j });
  }
  return ops;
}

/** `diff -u` style text, or "" when the texts are equal. */
export function unifiedDiff(
  before: string,
  after: string,
  fromName: string,
  toName: string,
  context = 3,
): string {
  if (before === after) return "";
  const ops = lineOps(splitLines(before), splitLines(after));
  const changed = ops.map((op, index) => (op.kind === " " ? -1 : index)).filter((index) => index >= 0);
  const hunks: Array<[number, number]> = [];
  for (const index of changed) {
    const start = Math.max(0, index - context);
    const end = Math.min(ops.length - 1, index + context);
    const last = hunks.at(-1);
    if (last && start <= last[1] + 1) last[1] = end;
    else hunks.push([start, end]);
  }
  const out = [`--- ${fromName}`, `+++ ${toName}`];
  for (const [start, end] of hunks) {
    const slice = ops.slice(start, end + 1);
    const first = ops[start]!;
    // Line numbers of the hunk's first line in each file (1-based; ops record the count so far).
    const aStart = first.kind === "+" ? first.a + 1 : first.a;
    const bStart = first.kind === "-" ? first.b + 1 : first.b;
    const aCount = slice.filter((op) => op.kind !== "+").length;
    const bCount = slice.filter((op) => op.kind !== "-").length;
    out.push(
      `@@ -${aCount === 0 ? aStart - 1 : aStart},${aCount} +${bCount === 0 ? bStart - 1 : bStart},${bCount} @@`,
    );
    for (const op of slice) out.push(`${op.kind}${op.line}`);
  }
  return `${out.join("\n")}\n`;
}
