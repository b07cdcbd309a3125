// The one redactor every printer uses (HTTP errors, diagnostics, the PostgreSQL store, the CLI):
// a row per rule it keeps.
import { describe, expect, it } from "vitest";
import { MIN_SECRET_LENGTH, REDACTED, redact, redactor } from "../../src/model/redact.js";

const KEY = "sk-live-0123456789";

describe("redact", () => {
  it.each<[string, string, string[], string]>([
    ["the exact value", KEY, [KEY], REDACTED],
    ["every occurrence", `${KEY} and ${KEY}`, [KEY], `${REDACTED} and ${REDACTED}`],
    ["inside a URL", `https://api.test/v1?key=${KEY}&x=1`, [KEY], `https://api.test/v1?key=${REDACTED}&x=1`],
    ["inside JSON", `{"token":"${KEY}"}`, [KEY], `{"token":"${REDACTED}"}`],
    ["a query value, URL-encoded", "GET /x?pw=p%40ss%2Fword", ["p@ss/word"], `GET /x?pw=${REDACTED}`],
    ["a JSON-escaped value", '{"pw":"say \\"hi\\" now"}', ['say "hi" now'], `{"pw":"${REDACTED}"}`],
    ["a value of the minimum length", "pin abcd here", ["abcd"], `pin ${REDACTED} here`],
    ["a value too short to be a secret", "a dev api key", ["a", "dev", "key"], "a dev api key"],
    ["the empty value", "nothing to hide", [""], "nothing to hide"],
    [
      "overlapping values, longest first",
      "token-abcdef-ghij",
      ["abcdef", "token-abcdef"],
      `${REDACTED}-ghij`,
    ],
    ["a value inside the marker is not re-redacted", `x ${KEY} y`, [KEY, "dact"], `x ${REDACTED} y`],
    ["regular-expression characters are literal", "cost $1.00+(tax)", ["$1.00+(tax)"], `cost ${REDACTED}`],
    ["no secrets", "plain text", [], "plain text"],
  ])("%s", (_rule, text, secrets, expected) => {
    expect(redact(text, secrets)).toBe(expected);
    expect(redactor(secrets)(text)).toBe(expected);
  });

  it("the marker is [redacted] and the minimum length is four", () => {
    expect(REDACTED).toBe("[redacted]");
    expect(MIN_SECRET_LENGTH).toBe(4);
  });

  it("accepts any iterable, duplicates included", () => {
    expect(redact(`${KEY}!`, new Set([KEY, KEY]))).toBe(`${REDACTED}!`);
  });
});
