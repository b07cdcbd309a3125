// Field-level comparison of specs. Absent, null, empty arrays and empty objects count as the
// same "nothing", so a provider echoing `[]` for an unset list is not reported as drift.
import { formatPath, isPlainObject, matchesAny, type PathSegment } from "../model/field-path.js";

interface FieldDifference {
  path: string;
  segments: PathSegment[];
  before: unknown;
  after: unknown;
}

const isEnumerable = Object.prototype.propertyIsEnumerable;

// Both run for every field of every resource a plan compares: they walk the values in place,
// without building key lists or closures (a plan of thousands of resources otherwise spends a
// good part of its diff collecting the garbage they made).
export function isEmptyValue(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isPlainObject(value)) {
    for (const key in value) if (Object.hasOwn(value, key) && !isEmptyValue(value[key])) return false;
    return true;
  }
  return false;
}

export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b && typeof a !== "object") return true;
  if (isEmptyValue(a) && isEmptyValue(b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    // Holes are skipped, as Array.prototype.every skips them.
    for (let i = 0; i < a.length; i++) if (i in a && !sameValue(a[i], b[i])) return false;
    return true;
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    // Every key either has (own, enumerable), each compared once.
    for (const key of Object.keys(a)) if (!sameValue(a[key], b[key])) return false;
    for (const key of Object.keys(b))
      if (!isEnumerable.call(a, key) && !sameValue(a[key], b[key])) return false;
    return true;
  }
  return a === b;
}

/**
 * Leaf-level differences from `before` to `after`. Objects are walked key by key, arrays of the
 * same length index by index; anything else (or a sensitive place) is reported as one value.
 */
export function diffValues(
  beforeValue: unknown,
  afterValue: unknown,
  sensitive: readonly string[] = [],
  path: PathSegment[] = [],
): FieldDifference[] {
  let before = beforeValue;
  let after = afterValue;
  if (sameValue(before, after)) return [];
  const atSensitive = path.length > 0 && matchesAny(sensitive, path);
  if (!atSensitive) {
    // A value appearing or disappearing as a whole is listed leaf by leaf, so secrets inside stay masked.
    if (isEmptyValue(before) && (isPlainObject(after) || Array.isArray(after))) {
      before = Array.isArray(after) ? after.map(() => undefined) : {};
    } else if (isEmptyValue(after) && (isPlainObject(before) || Array.isArray(before))) {
      after = Array.isArray(before) ? before.map(() => undefined) : {};
    }
    const [b, a] = [before, after];
    if (isPlainObject(b) && isPlainObject(a)) {
      const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])].sort();
      return keys.flatMap((k) => diffValues(b[k], a[k], sensitive, [...path, k]));
    }
    if (Array.isArray(b) && Array.isArray(a) && b.length === a.length) {
      return b.flatMap((item, i) => diffValues(item, a[i], sensitive, [...path, i]));
    }
  }
  return [{ path: formatPath(path), segments: path, before, after }];
}
