/**
 * `a.localeCompare(b)` without its cost: one collator made once (a plan of 500 resources sorts
 * thousands of addresses, and `localeCompare` builds a collator on every call). Made on the first
 * comparison, not at import: building it loads ICU's collation data (about 8 ms), which commands
 * that never sort (`--version`, `validate`) should not pay at start.
 */
let collator: ((a: string, b: string) => number) | undefined;
export function compareText(a: string, b: string): number {
  collator ??= new Intl.Collator().compare;
  return collator(a, b);
}
