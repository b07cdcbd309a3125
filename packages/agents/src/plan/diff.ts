// Field-level comparison of specs. Absent, null, empty arrays and empty objects count as the
// same "nothing", so a provider echoing `[]` for an unset list is not reported as drift.
import { formatPath, isPlainObject, matchesAny, type PathSegment } from "../model/field-path.js";

export interface FieldDifference {
  path: string;
  segments: PathSegment[];
  before: unknown;
  after: unknown;
}

export function isEmptyValue(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isPlainObject(value)) return Object.values(value).every(isEmptyValue);
  return false;
}

export function sameValue(a: unknown, b: unknown): boolean {
  if (isEmptyValue(a) && isEmptyValue(b)) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => sameValue(a[k], b[k]));
  }
  return a === b;
}

/**
 * Leaf-level differences from `before` to `after`. Objects are walked key by key, arrays of the
 * same length index by index; anything else (or a sensitive place) is reported as one value.
 */
export function diffValues(
  before: unknown,
  after: unknown,
  sensitive: readonly string[] = [],
  path: PathSegment[] = [],
): FieldDifference[] {
  if (sameValue(before, after)) return [];
  const atSensitive = path.length > 0 && matchesAny(sensitive, path);
  if (!atSensitive) {
    if (isPlainObject(before) && isPlainObject(after)) {
      const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
      return keys.flatMap((k) => diffValues(before[k], after[k], sensitive, [...path, k]));
    }
    if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
      return before.flatMap((item, i) => diffValues(item, after[i], sensitive, [...path, i]));
    }
  }
  return [{ path: formatPath(path), segments: path, before, after }];
}
