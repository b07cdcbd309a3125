// Every secret field the schema allows is declared sensitive by every handler that can receive
// it, so the state keeps it only as a keyed hash (issue 10: a provider_b deployment's git token
// was stored verbatim). One row per kind and secret field, checked on every provider.
import { describe, expect, it } from "vitest";
import { matchesAny } from "../../src/model/field-path.js";
import { ALL_ADAPTERS } from "../../src/providers/catalog.js";
import type { Kind } from "../../src/providers/types.js";
import { hashSecrets } from "../../src/state/secrets.js";

const SECRET_FIELDS: Array<[Kind, Array<string | number>]> = [
  ["vaults", ["credentials", 0, "access_token"]],
  ["vaults", ["credentials", 0, "secret_value"]],
  ["agents", ["resources", 0, "authorization_token"]],
  ["deployments", ["resources", 0, "authorization_token"]],
  ["channels", ["credentials", "client_secret"]],
];

describe("secret fields are hashed in state on every provider", () => {
  for (const adapter of ALL_ADAPTERS) {
    for (const [kind, path] of SECRET_FIELDS) {
      const handler = adapter.kinds[kind];
      if (!handler || handler.localOnly) continue;
      it(`${adapter.name} ${kind}: ${path.join(".")}`, () => {
        expect(matchesAny(handler.sensitive, path)).toBe(true);
      });
    }
  }
});

describe("hashSecrets hashes exactly the sensitive places of a spec, wherever they sit", () => {
  const key = Buffer.alloc(32, 7);
  const sensitive = [
    "credentials.*.secret_value",
    "credentials.*.access_token",
    "resources.*.authorization_token",
  ];
  const hashed = (value: string) => hashSecrets({ v: value }, ["v"], key).v;
  it.each([
    [
      "after other keys and nested objects",
      { a: { b: { c: 1 } }, credentials: [{ name: "n", secret_value: "s1" }] },
      { a: { b: { c: 1 } }, credentials: [{ name: "n", secret_value: hashed("s1") }] },
    ],
    [
      "in every element of a list, after a nested list",
      {
        credentials: [
          { scopes: ["x", "y"], access_token: "t1" },
          { secret_value: "s2", note: "k" },
        ],
      },
      {
        credentials: [
          { scopes: ["x", "y"], access_token: hashed("t1") },
          { secret_value: hashed("s2"), note: "k" },
        ],
      },
    ],
    [
      "a field named like a secret outside a sensitive place stays",
      {
        secret_value: "plain",
        resources: [{ authorization_token: "t2" }],
        other: [{ access_token: "plain" }],
      },
      {
        secret_value: "plain",
        resources: [{ authorization_token: hashed("t2") }],
        other: [{ access_token: "plain" }],
      },
    ],
  ])("%s", (_name, spec, expected) => {
    expect(hashSecrets(spec, sensitive, key)).toEqual(expected);
  });
});
