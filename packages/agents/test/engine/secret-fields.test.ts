// Every secret field the schema allows is declared sensitive by every handler that can receive
// it, so the state keeps it only as a keyed hash (issue 10: a provider_b deployment's git token
// was stored verbatim). One row per kind and secret field, checked on every provider.
import { describe, expect, it } from "vitest";
import { matchesAny } from "../../src/model/field-path.js";
import { ALL_ADAPTERS } from "../../src/providers/catalog.js";
import type { Kind } from "../../src/providers/types.js";

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
