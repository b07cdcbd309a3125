import { z } from "zod";
import { closest } from "./suggest.js";

/** Marker that lets the issue converter recover per-key suggestions from an unrecognized_keys issue. */
export const UNKNOWN_KEYS_MARKER = "\u0000unknown-keys:";

/**
 * A strict object whose unknown-key error carries a "did you mean" suggestion for each key,
 * computed against the keys this object actually declares.
 */
export function strict<T extends z.core.$ZodLooseShape>(shape: T) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code !== "unrecognized_keys") return undefined;
      const suggestions: Record<string, string | null> = {};
      for (const key of issue.keys) suggestions[key] = closest(key, known);
      return UNKNOWN_KEYS_MARKER + JSON.stringify({ suggestions, known });
    },
  });
}

/** Prefix a schema message with a stable diagnostic code; the converter splits it off again. */
export function coded(code: string, message: string): string {
  return `[${code}] ${message}`;
}

export const stringMap = z.record(z.string(), z.string());

export const metadata = stringMap.describe("free-form string labels passed to the provider");

/**
 * The spec types identity `metadata` as a plain `map`: numbers and booleans are accepted and sent
 * as their text (`42` → "42", `true` → "true"), the only values the provider's wire takes, so the
 * plan compares the text the provider gives back and shows no change after an apply.
 */
export const scalarMetadata = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String))
  .describe('free-form labels; numbers and booleans are sent as text (quote `"1.50"` to keep it exact)');

/** `provider:` pin on a resource. The names are checked against `providers` by the rules. */
export const providerPin = z
  .string()
  .describe("pins the resource to one declared provider; otherwise `defaults.provider` applies");

/** Secrets may be written as numbers in YAML; providers want strings. */
export const stringOrNumber = z.union([z.string(), z.number()]).transform((value) => String(value));
