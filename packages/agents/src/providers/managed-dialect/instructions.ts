// `instructions` is inline text or a path to a file relative to agents.yaml.
import { existsSync, readFileSync, statSync } from "node:fs";
import { resolveSource } from "./local-files.js";
import type { Json } from "./spec.js";

/** A single-line value naming an existing file is read; anything else is the text itself. */
export function resolveInstructions(spec: Json, configDir: string): Json {
  const value = spec.instructions;
  if (typeof value !== "string" || value.includes("\n") || value.length > 1024 || value.trim() === "")
    return spec;
  const path = resolveSource(configDir, value.trim());
  if (!existsSync(path) || !statSync(path).isFile()) return spec;
  return { ...spec, instructions: readFileSync(path, "utf8") };
}
