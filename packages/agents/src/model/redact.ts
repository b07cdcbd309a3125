// The one rule for keeping secret values out of printed text. The HTTP client's errors, the
// configuration's diagnostics, the PostgreSQL store's errors and the CLI's output all redact
// through here, so a value hidden in one place is hidden, the same way, in every other.

/** What stands in for a secret. Plan and apply output have always shown `[redacted]`. */
export const REDACTED = "[redacted]";

/**
 * Values shorter than this are left alone. A resolved `${VAR}` can be `1`, `eu` or `dev`, and
 * replacing every such substring would make a message unreadable while hiding nothing: a value
 * that short is no credential. Three of the four former copies (the HTTP client, the CLI and the
 * PostgreSQL store) used four; the diagnostics' three redacted words such as "api" and "key".
 */
export const MIN_SECRET_LENGTH = 4;

/** The forms a value takes when echoed inside a URL or a JSON string, besides itself. */
function encodings(value: string): string[] {
  return [value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A function that replaces every secret value (and its URL- and JSON-encoded forms) with
 * {@link REDACTED}. One pass, longest value first, so a secret that contains another is hidden
 * whole and the marker itself is never rewritten.
 */
export function redactor(secrets: Iterable<string>): (text: string) => string {
  const values = [...new Set([...secrets].flatMap(encodings))]
    .filter((s) => s.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  if (values.length === 0) return (text) => text;
  const pattern = new RegExp(values.map(escapeRegExp).join("|"), "g");
  return (text) => text.replace(pattern, REDACTED);
}

/** `text` with every secret value replaced (see {@link redactor}). */
export function redact(text: string, secrets: Iterable<string>): string {
  return redactor(secrets)(text);
}
