import { z } from "zod";
import { configSchema } from "./schema/index.js";

export const SCHEMA_ID = "urn:agents:agents.yaml:schema:1";

/** The JSON Schema of what a user writes (zod's input side), for editors and docs. */
export function jsonSchema(): Record<string, unknown> {
  // Top-level `x-*` keys are extension fields (anchors); the loader ignores them, so editors must too.
  return { ...editorSchema(configSchema, SCHEMA_ID, "agents.yaml"), patternProperties: { "^x-": {} } };
}

/** What a user writes (zod's input side) as draft 2020-12 JSON Schema, with its id and title. */
export function editorSchema(schema: z.ZodType, id: string, title: string): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any", target: "draft-2020-12" });
  return { ...json, $id: id, title };
}
