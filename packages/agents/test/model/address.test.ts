import { describe, expect, it } from "vitest";
import { type AddressParts, formatAddress, parseAddress } from "../../src/model/address.js";

describe("addresses", () => {
  const known: AddressParts[] = [
    { provider: "provider_c", kind: "agents", name: "code.reviewer" },
    { provider: "provider_c", kind: "agents", name: "helper" },
    { provider: "provider_d", kind: "agents", name: "helper" },
  ];

  it.each([
    [{ provider: "provider_c", kind: "agents", name: "code.reviewer" }, 'provider_c.agents["code.reviewer"]'],
    [{ provider: "provider_b", kind: "vaults", name: 'we"ird]' }, 'provider_b.vaults["we\\"ird]"]'],
  ] as const)("formats and parses back %j", (parts, text) => {
    expect(formatAddress(parts)).toBe(text);
    expect(parseAddress(text)).toEqual({ ok: true, value: parts });
  });

  it.each([
    ["provider_d.agents.helper", { provider: "provider_d", kind: "agents", name: "helper" }],
    ['agents["code.reviewer"]', known[0]],
    ["agents.code.reviewer", known[0]],
  ])("accepts the shorthand %s", (text, value) => {
    expect(parseAddress(text, known)).toEqual({ ok: true, value });
  });

  it.each([
    ["agents.helper", /ambiguous/],
    ["agents.nobody", /no agents named/],
    ["provider_c.gadgets.x", /unknown resource kind/],
    ["helper", /not a resource address/],
  ])("rejects %s", (text, error) => {
    const parsed = parseAddress(text, known);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toMatch(error);
  });
});
