// The hand check of plain environments and agents (src/config/schema/plain.ts) against zod: when
// it takes a declaration, zod takes it too and gives the same output, key order included; the
// whole-file parse gives zod's result, success or failure, on files mixing plain and other
// declarations and errors elsewhere.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { agentSchema } from "../../../src/config/schema/agent.js";
import { configSchema } from "../../../src/config/schema/index.js";
import { parseConfig, plainDeclarations } from "../../../src/config/schema/plain.js";
import { environmentSchema } from "../../../src/config/schema/resources.js";

const RUNS = 400;

/** JSON with key order: two outputs are the same only when their keys come in the same order. */
const exact = (value: unknown) => JSON.stringify(value);

/** Values a field may hold in a file: text (empty too), and what YAML reads as other types. */
const fieldValue = fc.oneof(
  fc.constantFrom("x", "", "provider_c", "env_1", "qwen-max", "${VAR}"),
  fc.string({ maxLength: 4 }),
  fc.constantFrom(0, 1.5, true, null, [], {}, ["a"], { a: "b" }),
);

/** A mapping of some of `keys` (or other keys), each with a value, in a shuffled order. */
function declaration(keys: string[], extra: fc.Arbitrary<Record<string, unknown>> = fc.constant({})) {
  return fc
    .tuple(
      fc.subarray([...keys, "metadata", "bogus", "__proto__"]),
      fc.array(fieldValue, { minLength: keys.length + 3, maxLength: keys.length + 3 }),
      extra,
      fc.boolean(),
    )
    .map(([chosen, values, more, reversed]) => {
      const out: Record<string, unknown> = {};
      const order = reversed ? [...chosen].reverse() : chosen;
      order.forEach((key, i) => {
        Object.defineProperty(out, key, {
          value: values[i],
          enumerable: true,
          writable: true,
          configurable: true,
        });
      });
      for (const [key, value] of Object.entries(more)) out[key] = value;
      return out;
    });
}

const environmentConfig = fc.oneof(
  fc.constantFrom(
    { type: "cloud" },
    { type: "self_hosted" },
    { setup_script: "echo hi", type: "self_hosted" },
    { type: "cloud", setup_script: "" },
    { type: "cloud", setup_script: 3 },
    { type: "other" },
    { type: "cloud", networking: { type: "limited" } },
    { type: "cloud", packages: { pip: ["x"] } },
    {},
  ),
  fc.constantFrom("cloud", null, ["cloud"]),
);

const plainEnvironment = fc.record(
  {
    name: fc.string({ maxLength: 3 }),
    description: fc.string({ maxLength: 3 }),
    provider: fc.constantFrom("provider_a", "provider_c"),
    environment_id: fc.string({ minLength: 1, maxLength: 3 }),
    config: fc.constantFrom({ type: "cloud" }, { type: "self_hosted", setup_script: "x" }),
  },
  { requiredKeys: ["config"] },
);

const plainAgent = fc.record(
  {
    description: fc.string({ maxLength: 3 }),
    model: fc.string({ minLength: 1, maxLength: 3 }),
    instructions: fc.string({ minLength: 1, maxLength: 3 }),
    environment: fc.string({ maxLength: 3 }),
    tunnel: fc.string({ maxLength: 3 }),
    provider: fc.constantFrom("provider_a", "provider_c"),
    vault: fc.string({ maxLength: 3 }),
  },
  { requiredKeys: ["model", "instructions"] },
);

/** A plain declaration with one field set to any value: what a typo in one field looks like. */
function nearly(plain: fc.Arbitrary<Record<string, unknown>>, keys: string[]) {
  return fc
    .tuple(plain, fc.constantFrom(...keys), fieldValue)
    .map(([spec, key, value]) => ({ ...spec, [key]: value }));
}

const environment = fc.oneof(
  plainEnvironment,
  nearly(plainEnvironment, ["name", "description", "provider", "environment_id", "config"]),
  declaration(["name", "description", "provider", "environment_id", "config"]),
  fc
    .tuple(declaration(["name", "description", "provider", "environment_id"]), environmentConfig)
    .map(([spec, config]) => ({ ...spec, config })),
);
const agent = fc.oneof(
  plainAgent,
  nearly(plainAgent, ["description", "model", "instructions", "environment", "tunnel", "provider", "vault"]),
  declaration(["description", "model", "instructions", "environment", "tunnel", "provider", "vault"]),
  declaration(["model", "instructions", "tools", "skills"]),
);

const KINDS = [
  ["environments", environmentSchema, environment],
  ["agents", agentSchema, agent],
] as const;

describe("plain declarations, checked without zod", () => {
  for (const [kind, schema, arbitrary] of KINDS) {
    it(`${kind}: a declaration taken is one zod takes, with zod's output`, () => {
      let taken = 0;
      let declined = 0;
      fc.assert(
        fc.property(arbitrary, (spec) => {
          const plain = plainDeclarations(kind, { one: spec });
          const parsed = schema.safeParse(spec);
          if (plain === undefined) {
            declined++;
            return;
          }
          taken++;
          expect(parsed.success).toBe(true);
          expect(exact(plain.one)).toBe(exact(parsed.data));
          expect(Object.getPrototypeOf(plain.one)).toBe(Object.getPrototypeOf(parsed.data));
          expect(plain.one).not.toBe(spec);
        }),
        { numRuns: RUNS },
      );
      // Both sides happen: the check is not vacuous either way.
      expect(taken).toBeGreaterThan(RUNS / 10);
      expect(declined).toBeGreaterThan(RUNS / 10);
    });
  }

  it("declines a map with an empty or `__proto__` name, or that is not a mapping", () => {
    const spec = { model: "m", instructions: "i" };
    expect(plainDeclarations("agents", { a: spec })).toEqual({ a: spec });
    expect(plainDeclarations("agents", { "": spec })).toBeUndefined();
    const proto: Record<string, unknown> = {};
    Object.defineProperty(proto, "__proto__", { value: spec, enumerable: true });
    expect(plainDeclarations("agents", proto)).toBeUndefined();
    expect(plainDeclarations("agents", [spec])).toBeUndefined();
    expect(plainDeclarations("agents", null)).toBeUndefined();
  });

  it("the whole file: zod's result, success or failure, output and issues alike", () => {
    // Mostly valid, so that the files zod takes (the path this check changes) are many.
    const mostly = <T, U>(valid: T, other: U[]) =>
      fc.oneof(
        { arbitrary: fc.constant(valid), weight: 4 },
        { arbitrary: fc.constantFrom(...other), weight: 1 },
      );
    const top = fc.record(
      {
        version: mostly("1", [1]),
        providers: mostly({ provider_c: { api_key: "k" } }, [{ provider_x: {} }]),
        defaults: mostly({ provider: "all" }, [{ bogus: 1 }]),
        environments: fc.dictionary(
          fc.constantFrom("e1", "e2", "3", ""),
          fc.oneof({ arbitrary: plainEnvironment, weight: 6 }, environment),
          { maxKeys: 3 },
        ),
        agents: fc.dictionary(
          fc.constantFrom("a1", "a2", "10"),
          fc.oneof({ arbitrary: plainAgent, weight: 6 }, agent),
          { maxKeys: 3 },
        ),
        vaults: mostly({ v: {} }, [{ v: { credentials: "no" } }]),
      },
      { requiredKeys: ["version", "providers"] },
    );
    let succeeded = 0;
    fc.assert(
      fc.property(top, (raw) => {
        const ours = parseConfig(raw);
        const zods = configSchema.safeParse(raw);
        expect(ours.success).toBe(zods.success);
        if (zods.success) {
          if (plainDeclarations("agents", raw.agents) && plainDeclarations("environments", raw.environments))
            succeeded++;
          expect(exact(ours.data)).toBe(exact(zods.data));
        } else expect(exact(ours.error?.issues)).toBe(exact(zods.error.issues));
      }),
      { numRuns: RUNS / 2 },
    );
    expect(succeeded).toBeGreaterThan(RUNS / 20);
  });

  it("keeps the schemas' key order: `config` after an environment's text fields", () => {
    const keys = Object.keys(environmentSchema.shape);
    for (const field of ["name", "description", "provider", "environment_id"])
      expect(keys.indexOf(field)).toBeLessThan(keys.indexOf("config"));
  });
});
