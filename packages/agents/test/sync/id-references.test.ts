// Remote ids a list can only report as ids (a Forward Template's environment and vault) become
// the project's logical names; anything else is left out with a warning. One case per rule.
import { describe, expect, it } from "vitest";
import { indexClaims, kindKey, type Listed } from "../../src/sync/claims.js";
import { mapIdReferences, type SyncRef } from "../../src/sync/id-references.js";

const PROJECT = "p";
const env = (id: string, project: string | undefined, name: string): Listed => ({
  provider: "provider_b",
  kind: "environments",
  remote: {
    id,
    spec: {},
    ...(project ? { owner: { project, resource: `provider_b.environments["${name}"]` } } : {}),
  },
});
const claims = indexClaims(
  PROJECT,
  [
    env("env_ours", PROJECT, "desk-env"),
    env("env_theirs", "other", "desk-env"),
    env("env_nobody", undefined, "x"),
  ],
  new Set([kindKey("provider_b", "environments")]),
);
const ref = (id: string): SyncRef => ({ field: "environment", kind: "environments", ids: [id], list: false });

const CASES: Array<{
  rule: string;
  id: string;
  declared?: Record<string, unknown>;
  expected: unknown;
  warns: boolean;
}> = [
  {
    rule: "the project's own object becomes its logical name",
    id: "env_ours",
    expected: "desk-env",
    warns: false,
  },
  {
    rule: "another project's object is left out, with a warning",
    id: "env_theirs",
    expected: undefined,
    warns: true,
  },
  {
    rule: "an object owned by nobody is left out, with a warning",
    id: "env_nobody",
    expected: undefined,
    warns: true,
  },
  {
    rule: "an id missing from the listing is left out, with a warning",
    id: "env_gone",
    expected: undefined,
    warns: true,
  },
  {
    rule: "a declaration that names the field keeps its own value",
    id: "env_theirs",
    declared: { environment: "mine" },
    expected: undefined,
    warns: false,
  },
];

describe("id references in listed specs", () => {
  for (const c of CASES)
    it(c.rule, () => {
      const warnings: string[] = [];
      const out = mapIdReferences({ model: "auto" }, [ref(c.id)], c.declared, {
        claims,
        provider: "provider_b",
        holder: 'provider_b.agents["t"]',
        warn: (m) => warnings.push(m),
      });
      expect(out.environment).toBe(c.expected);
      expect(warnings.length > 0).toBe(c.warns);
      if (c.warns)
        expect(warnings[0]).toContain(`environment names environments ${c.id}, which is not this project's`);
    });
});
