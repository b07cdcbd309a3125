import { describe, expect, it } from "vitest";
import { jsonSchema } from "../../src/config/json-schema.js";

type Json = Record<string, any>;

describe("the JSON Schema editors read: the moved, import and removed lists", () => {
  const properties = (jsonSchema() as Json).properties as Json;
  it.each([
    { list: "moved", fields: ["from", "to"], required: ["from", "to"] },
    { list: "import", fields: ["to", "id"], required: ["to", "id"] },
    { list: "removed", fields: ["from", "destroy"], required: ["from", "destroy"] },
  ])("$list: a list of {$fields}, strict, described", ({ list, fields, required }) => {
    const schema = properties[list] as Json;
    expect(schema.type).toBe("array");
    expect(schema.description).toBeTruthy();
    expect(Object.keys(schema.items.properties)).toEqual(fields);
    expect(schema.items.required).toEqual(required);
    expect(schema.items.additionalProperties).toBe(false);
    for (const field of fields) expect(schema.items.properties[field].description).toBeTruthy();
  });
});
