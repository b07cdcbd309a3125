/** Edit distance (insert, delete, substitute, adjacent swap) between two short strings. */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidate closest to `input`, if it is close enough to be a plausible typo. */
export function closest(input: string, candidates: Iterable<string>): string | null {
  const needle = input.toLowerCase();
  let best: string | null = null;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const hay = candidate.toLowerCase();
    const score = hay === needle ? 0 : editDistance(needle, hay);
    if (score < bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  const limit = Math.max(2, Math.floor(input.length / 3));
  return best !== null && bestScore <= limit ? best : null;
}

export function didYouMean(input: string, candidates: Iterable<string>): string {
  const match = closest(input, candidates);
  return match ? ` (did you mean "${match}"?)` : "";
}
