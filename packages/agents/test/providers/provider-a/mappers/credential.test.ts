// One row per provider_a credential rule (docs/wire/provider-a.md §8, U1).
import { describe, expect, it } from "vitest";
import { DeclarationError } from "../../../../src/providers/common/errors.js";
import {
  type CredentialDecl,
  credentialFromWire,
  credentialToWire,
  isExactCredentialMatch,
  type RemoteCredential,
  resolvePolicy,
  samePolicy,
} from "../../../../src/providers/provider-a/mappers/credential.js";

const base: CredentialDecl = {
  name: "gh",
  type: "environment_variable",
  secret_name: "GH_TOKEN",
  secret_value: "s3cret",
};

describe("provider_a credential injection policy (spec rules)", () => {
  const rows: [
    string,
    Partial<CredentialDecl>,
    { allowedHosts: string[]; header: boolean; body: boolean } | RegExp,
  ][] = [
    [
      "omitted policy: allowed_hosts *, header true, body false",
      {},
      { allowedHosts: ["*"], header: true, body: false },
    ],
    [
      "legacy unrestricted maps to *",
      { networking: { type: "unrestricted" } },
      { allowedHosts: ["*"], header: true, body: false },
    ],
    [
      "limited keeps its explicit host list",
      { networking: { type: "limited", allowed_hosts: ["api.github.com", "*.example.com"] } },
      { allowedHosts: ["api.github.com", "*.example.com"], header: true, body: false },
    ],
    [
      "limited without hosts is rejected, never widened",
      { networking: { type: "limited" } },
      /never widened/,
    ],
    [
      "limited with an empty host list is rejected",
      { networking: { type: "limited", allowed_hosts: [] } },
      /never widened/,
    ],
    [
      "host list without a type is preserved",
      { networking: { allowed_hosts: ["api.example.com"] } },
      { allowedHosts: ["api.example.com"], header: true, body: false },
    ],
    [
      "explicit booleans are preserved",
      { injection_location: { header: false, body: true } },
      { allowedHosts: ["*"], header: false, body: true },
    ],
    [
      "one boolean given: the other keeps its default",
      { injection_location: { body: true } },
      { allowedHosts: ["*"], header: true, body: true },
    ],
    [
      "unrestricted with a host list is contradictory",
      { networking: { type: "unrestricted", allowed_hosts: ["a.com"] } },
      /contradicts/,
    ],
  ];
  it.each(rows)("%s", (_rule, patch, expected) => {
    const decl = { ...base, ...patch };
    if (expected instanceof RegExp) {
      expect(() => resolvePolicy(decl)).toThrow(DeclarationError);
      expect(() => resolvePolicy(decl)).toThrow(expected);
    } else {
      expect(resolvePolicy(decl)).toEqual(expected);
    }
  });

  it("nests the policy under auth in the create body", () => {
    const body = credentialToWire({
      ...base,
      networking: { type: "limited", allowed_hosts: ["api.github.com"] },
    });
    expect(body).toEqual({
      display_name: "gh",
      auth: {
        type: "environment_variable",
        secret_name: "GH_TOKEN",
        secret_value: "s3cret",
        networking: { type: "limited", allowed_hosts: ["api.github.com"] },
        injection_location: { header: true, body: false },
      },
    });
  });

  it("coerces a numeric secret to a string", () => {
    const body = credentialToWire({ ...base, secret_value: 1234 });
    expect((body.auth as { secret_value: unknown }).secret_value).toBe("1234");
  });

  it("rejects static_bearer before any request (the API refuses it)", () => {
    expect(() =>
      credentialToWire({
        name: "mcp",
        type: "static_bearer",
        mcp_server_url: "https://x",
        access_token: "t",
      }),
    ).toThrow(/only environment_variable/);
  });

  it("reads explicit hosts and booleans back for sync/export, never the secret", () => {
    const remote: RemoteCredential = {
      id: "vcrd_1",
      display_name: "gh",
      auth: {
        type: "environment_variable",
        secret_name: "GH_TOKEN",
        networking: { type: "limited", allowed_hosts: ["api.github.com"] },
        injection_location: { header: false, body: true },
      },
    };
    const decl = credentialFromWire(remote);
    expect(decl).toEqual({
      name: "gh",
      type: "environment_variable",
      secret_name: "GH_TOKEN",
      networking: { allowed_hosts: ["api.github.com"] },
      injection_location: { header: false, body: true },
    });
    expect(JSON.stringify(decl)).not.toContain("secret_value");
  });

  it("reads a legacy unrestricted wire value as *", () => {
    expect(
      credentialFromWire({
        id: "c",
        auth: { type: "environment_variable", networking: { type: "unrestricted" } },
      }).networking,
    ).toEqual({
      allowed_hosts: ["*"],
    });
  });
});

describe("provider_a retry adoption compares host sets and injection policy", () => {
  const remote = (
    auth: Record<string, unknown>,
    extra: Partial<RemoteCredential> = {},
  ): RemoteCredential => ({
    id: "vcrd_1",
    display_name: "gh",
    auth: { type: "environment_variable", secret_name: "GH_TOKEN", ...auth },
    ...extra,
  });
  const hosts = (h: string[]) => ({ networking: { type: "limited", allowed_hosts: h } });
  const rows: [string, CredentialDecl, RemoteCredential, boolean][] = [
    [
      "same defaults: exact match",
      base,
      remote({ ...hosts(["*"]), injection_location: { header: true, body: false } }),
      true,
    ],
    [
      "host sets compare as sets (order and case)",
      { ...base, networking: { type: "limited", allowed_hosts: ["b.com", "A.com"] } },
      remote({ ...hosts(["a.com", "b.com"]), injection_location: { header: true, body: false } }),
      true,
    ],
    [
      "different host set is not a match",
      { ...base, networking: { type: "limited", allowed_hosts: ["a.com"] } },
      remote({ ...hosts(["a.com", "b.com"]) }),
      false,
    ],
    [
      "different injection policy is not a match",
      base,
      remote({ ...hosts(["*"]), injection_location: { header: true, body: true } }),
      false,
    ],
    ["different secret name is not a match", base, remote({ ...hosts(["*"]), secret_name: "OTHER" }), false],
    ["different display name is not a match", base, remote(hosts(["*"]), { display_name: "other" }), false],
    [
      "different metadata is not a match",
      { ...base, metadata: { team: "a" } },
      remote(hosts(["*"]), { metadata: { team: "b" } }),
      false,
    ],
    [
      "archived credential is not a match",
      base,
      remote(hosts(["*"]), { archived_at: "2026-01-01T00:00:00Z" }),
      false,
    ],
  ];
  it.each(rows)("%s", (_rule, decl, wire, expected) => {
    expect(isExactCredentialMatch(decl, wire)).toBe(expected);
  });

  it("samePolicy ignores duplicate hosts", () => {
    expect(
      samePolicy(
        { allowedHosts: ["a", "a"], header: true, body: false },
        { allowedHosts: ["a"], header: true, body: false },
      ),
    ).toBe(true);
  });
});
