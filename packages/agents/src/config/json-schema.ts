import { z } from "zod";
import { configSchema } from "./schema/index.js";

export const SCHEMA_ID = "urn:agents:agents.yaml:schema:1";

/** The JSON Schema of what a user writes (zod's input side), for editors and docs. */
export function jsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(configSchema, {
    io: "input",
    unrepresentable: "any",
    target: "draft-2020-12",
  });
  // Top-level `x-*` keys are extension fields (anchors); the loader ignores them, so editors must too.
  return { ...schema, $id: SCHEMA_ID, title: "agents.yaml", patternProperties: { "^x-": {} } };
}
