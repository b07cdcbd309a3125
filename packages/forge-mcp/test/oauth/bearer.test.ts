import { describe, expect, it } from "vitest";
import { parseBearer } from "../../src/oauth/bearer.js";

// The one reading of the Authorization header that /mcp's budget and bearer check share: the
// scheme in any case (RFC 7235 §2.1), so a token the check verifies is always one the budget counts.
describe("parseBearer", () => {
  it.each([
    ["Bearer tok", { token: "tok" }],
    ["bearer tok", { token: "tok" }],
    ["BEARER tok", { token: "tok" }],
    ["Bearer tok extra", { token: "tok" }],
    ["Bearer ", undefined],
    ["Bearer  tok", undefined],
    ["Basic dXNlcjpwYXNz", undefined],
    ["Bearer\ttok", undefined],
    [undefined, undefined],
  ])("%j", (header, expected) => {
    expect(parseBearer(header)).toEqual(expected);
  });
});
