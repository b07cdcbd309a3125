/**
 * search_tools' ranking: a query in words against every tool's name, toolset and description.
 * Deterministic (no model, no index to build): the same query over the same tools answers the
 * same names in the same order.
 */

/** One tool as the search sees it. */
export interface Searchable {
  name: string;
  toolset: string;
  description: string;
}

/** Words a developer says for what the forge calls otherwise. */
const SYNONYMS: Record<string, string[]> = {
  mr: ["merge", "request"],
  mrs: ["merge", "request"],
  pr: ["merge", "request"],
  prs: ["merge", "request"],
  ci: ["pipeline", "job"],
  build: ["pipeline", "job"],
  log: ["job", "output"],
  logs: ["job", "output"],
  repo: ["repository"],
  comment: ["note"],
  comments: ["note"],
  review: ["discussion", "note", "draft"],
  me: ["current", "user", "whoami"],
  ticket: ["issue"],
  bug: ["issue"],
  diff: ["diffs", "changes"],
  wiki: ["wiki"],
  secret: ["variable"],
  env: ["environment"],
  deploy: ["deployment"],
  tag: ["tag"],
  release: ["release"],
};

/** A word's stem: lower case, a plural's s dropped (issues → issue, branches → branch). */
function stem(word: string): string {
  const w = word.toLowerCase();
  if (w.length > 4 && w.endsWith("ies")) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && /(ch|sh|x|ss)es$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss")) return w.slice(0, -1);
  return w;
}

export function words(text: string): string[] {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map(stem);
}

/** The query's words, each with the words it stands for. */
function queryTerms(query: string): string[][] {
  return words(query).map((w) => [w, ...(SYNONYMS[w] ?? []).map(stem)]);
}

interface Indexed {
  name: Set<string>;
  set: Set<string>;
  desc: Set<string>;
  exactName: string;
}
// a tool's words, worked out once per tool object
const indexed = new WeakMap<Searchable, Indexed>();
function indexOf(t: Searchable): Indexed {
  let i = indexed.get(t);
  if (!i) {
    const n = words(t.name);
    i = {
      name: new Set(n),
      set: new Set(words(t.toolset)),
      desc: new Set(words(t.description)),
      exactName: n.join("_"),
    };
    indexed.set(t, i);
  }
  return i;
}

/**
 * The tools matching a query, best first: a word in the tool's name counts most, in its toolset
 * next, in its description least; a name the query spells out in full (gitlab-mcp's names, with
 * `_` or spaces) comes first. Ties go to the shorter name, then the alphabet.
 */
export function rankTools<T extends Searchable>(tools: readonly T[], query: string, limit: number): T[] {
  const terms = queryTerms(query);
  const exact = words(query).join("_");
  const scored: { t: T; score: number }[] = [];
  for (const t of tools) {
    const { name, set, desc, exactName } = indexOf(t);
    let score = 0;
    let matched = 0;
    for (const [word, ...alternatives] of terms) {
      // the word itself counts more than what it stands for; each further word it stands for
      // that the name carries adds one (log → job output: get_pipeline_job_output)
      let best = name.has(word!) ? 4 : set.has(word!) ? 2 : desc.has(word!) ? 1 : 0;
      let extra = 0;
      for (const w of alternatives) {
        if (name.has(w)) {
          if (best >= 3) extra++;
          best = Math.max(best, 3);
        } else if (set.has(w)) best = Math.max(best, 2);
        else if (desc.has(w)) best = Math.max(best, 1);
      }
      if (best > 0) matched++;
      score += best + extra;
    }
    if (matched === 0) continue;
    if (exactName === exact) score += 100;
    // a tool that matches every word of the query ranks above one matching some of them
    if (matched === terms.length) score += 10;
    scored.push({ t, score });
  }
  scored.sort(
    (a, b) => b.score - a.score || a.t.name.length - b.t.name.length || (a.t.name < b.t.name ? -1 : 1),
  );
  return scored.slice(0, limit).map((s) => s.t);
}

/** A description's first sentence: the one line search_tools shows for a tool. */
export function firstSentence(description: string): string {
  const m = /^(.+?[.!?])(\s|$)/.exec(description);
  return m ? m[1]! : description;
}
