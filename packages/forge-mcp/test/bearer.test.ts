import { describe, expect, it } from "vitest";
import { parseBearer } from "../src/oauth/bearer.js";

// The one reading of the Authorization header that /mcp's budget and bearer check share. Rows are
// today's behaviour: the check takes any case of the scheme, the budget counts exact `Bearer` only.
describe("parseBearer", () => {
  it.each([
    ["Bearer tok", { token: "tok", budgeted: true }],
    ["bearer tok", { token: "tok", budgeted: false }],
    ["BEARER tok", { token: "tok", budgeted: false }],
    ["Bearer tok extra", { token: "tok", budgeted: true }],
    ["Bearer ", undefined],
    ["Bearer  tok", undefined],
    ["Basic dXNlcjpwYXNz", undefined],
    ["Bearer\ttok", undefined],
    [undefined, undefined],
  ])("%j", (header, expected) => {
    expect(parseBearer(header)).toEqual(expected);
  });
});
