import { findGroup, findProject, groupById, groupFullPath, projectFullPath } from "../model/access.js";
import type { ForgeState, Group, Project } from "../model/state.js";

/** A seed that cannot be applied: the control API answers 400 and nothing is changed. */
export class SeedError extends Error {
  readonly status = 400;
  get publicMessage(): string {
    return this.message;
  }
}

export function check(cond: unknown, message: string): asserts cond {
  if (!cond) throw new SeedError(message);
}

export const isObj = (v: unknown): v is Record<string, any> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export function list(body: Record<string, unknown>, key: string): Record<string, any>[] {
  const v = body[key];
  if (v === undefined) return [];
  check(Array.isArray(v) && v.every(isObj), `${key} must be an array of objects`);
  return v as Record<string, any>[];
}

/**
 * One kind of forge record as the control API sees it: the key it has in `POST /_sim/seed` and
 * `GET /_sim/state`, how a seed's rows are added, how the state is dumped in the shape the seed
 * reads back, and how `replace: true` empties it. The registry (seed/registry.ts) lists every
 * collection of ForgeState once, so a dump holds every object and seeding it rebuilds the world.
 */
export interface RecordKind {
  key: string;
  /** Adds a seed's rows; kinds without it are dumped for reading only and ignored in a seed. */
  seed?(state: ForgeState, rows: Record<string, any>[]): void;
  dump(state: ForgeState): unknown[];
  /** Empties the kind for `replace: true`; kinds without it (the identities) are upserted instead. */
  reset?(state: ForgeState): void;
}

/** The id series a kind numbers its rows from (ForgeState.seq). */
type Series = keyof ForgeState["seq"];

/**
 * A seeded row's id: the dumped one (the series never gives it out again), else the series' next.
 * Every id a dump holds is kept, so the numeric references between records stay true.
 */
export function seededId(state: ForgeState, series: Series, v: unknown): number {
  if (typeof v === "number" && Number.isInteger(v) && v > 0) {
    state.seq[series] = Math.max(state.seq[series], v);
    return v;
  }
  state.seq[series] += 1;
  return state.seq[series];
}

/** The project a seed row names by full path (`project`). */
export function projectAt(state: ForgeState, x: Record<string, any>, where: string): Project {
  const p = typeof x.project === "string" ? findProject(state, x.project) : undefined;
  check(p, `${where}: project ${JSON.stringify(x.project)} does not exist`);
  return p;
}

/** The group a seed row names by full path (`group`). */
export function groupAt(state: ForgeState, x: Record<string, any>, where: string): Group {
  const g = typeof x.group === "string" ? findGroup(state, x.group) : undefined;
  check(g, `${where}: group ${JSON.stringify(x.group)} does not exist`);
  return g;
}

/** A project's full path for a dump (null once the project is gone). */
export function projectPath(state: ForgeState, id: number): string | null {
  const p = state.projects.find((x) => x.id === id);
  return p ? projectFullPath(state, p) : null;
}

/** A group's full path for a dump (null once the group is gone). */
export function groupPath(state: ForgeState, id: number): string | null {
  const g = groupById(state, id);
  return g ? groupFullPath(state, g) : null;
}

export const text = (v: unknown, fallback: string): string => (typeof v === "string" ? v : fallback);
export const textOrNull = (v: unknown): string | null => (typeof v === "string" ? v : null);

type Rows = {
  [K in keyof ForgeState]: ForgeState[K] extends Array<infer R> ? (R extends object ? K : never) : never;
}[keyof ForgeState];

/**
 * A kind seeded and dumped as it is stored: records only the API makes, whose rows refer to
 * projects, groups, issues, merge requests, notes and users by id (a dump keeps those ids).
 */
export function storedRows(key: string, field: Rows, series?: Series): RecordKind {
  return {
    key,
    seed(state, rows) {
      for (const row of rows) {
        if (series) seededId(state, series, row.id);
        (state[field] as object[]).push(structuredClone(row));
      }
    },
    dump: (state) => structuredClone(state[field]),
    reset(state) {
      (state[field] as object[]) = [];
    },
  };
}

/**
 * A kind a person seeds by hand, each row owned by a project or a group named by full path: the
 * seed resolves the owner, checks the `required` text fields, numbers the row from `series` (the
 * dumped id kept) and `build` makes the rest of the stored row from the seed's (or the dump's)
 * fields; the dump names the owner by path again and leaves out what `build` derives (`derived`).
 * `replaces` says which stored row a seeded one takes the place of (none unless given).
 */
export function ownedRows<F extends Rows>(spec: {
  key: string;
  field: F;
  owner: "project" | "group";
  required?: string[];
  series?: Series;
  build(
    state: ForgeState,
    x: Record<string, any>,
    ownerId: number,
    now: string,
  ): Omit<ForgeState[F][number], "id">;
  replaces?(stored: ForgeState[F][number], seeded: ForgeState[F][number]): boolean;
  derived?: string[];
}): RecordKind {
  const ownerField = `${spec.owner}_id`;
  const rows = (state: ForgeState) => state[spec.field] as Record<string, any>[];
  return {
    key: spec.key,
    seed(state, seeded) {
      const now = state.clock.iso();
      const where = `${spec.key}[]`;
      for (const x of seeded) {
        const owner = spec.owner === "project" ? projectAt(state, x, where) : groupAt(state, x, where);
        for (const name of spec.required ?? [])
          check(typeof x[name] === "string" && x[name], `${where}.${name} is required`);
        const id = spec.series ? { id: seededId(state, spec.series, x.id) } : {};
        const row = { ...id, ...spec.build(state, x, owner.id, now) } as ForgeState[F][number];
        const replaces = spec.replaces;
        if (replaces)
          (state[spec.field] as unknown[]) = rows(state).filter((r) => !replaces(r as never, row));
        rows(state).push(row);
      }
    },
    dump: (state) =>
      rows(state).map(({ [ownerField]: id, ...row }) => {
        for (const k of spec.derived ?? []) delete row[k];
        return { [spec.owner]: (spec.owner === "project" ? projectPath : groupPath)(state, id), ...row };
      }),
    reset(state) {
      (state[spec.field] as unknown[]) = [];
    },
  };
}

type Maps = {
  [K in keyof ForgeState]: ForgeState[K] extends Record<number, infer V>
    ? ForgeState[K] extends unknown[]
      ? never
      : V extends number | string
        ? K
        : never
    : never;
}[keyof ForgeState];

/** A kind stored as a map from one record's id to a value, dumped as `[{<from>, <to>}]`. */
export function storedPairs(key: string, field: Maps, from: string, to: string): RecordKind {
  return {
    key,
    seed(state, rows) {
      const map = state[field] as Record<string, unknown>;
      for (const row of rows) {
        check(row[from] !== undefined && row[to] !== undefined, `${key}[] needs ${from} and ${to}`);
        map[String(row[from])] = row[to];
      }
    },
    dump: (state) =>
      Object.entries(state[field]).map(([k, v]) => ({ [from]: /^\d+$/.test(k) ? Number(k) : k, [to]: v })),
    reset(state) {
      (state[field] as Record<string, unknown>) = {};
    },
  };
}

/** Applies every kind's rows of a seed body, in the registry's order (references point backwards). */
export function seedRecords(kinds: readonly RecordKind[], state: ForgeState, body: Record<string, unknown>) {
  if (body.replace === true) for (const k of kinds) k.reset?.(state);
  for (const k of kinds) {
    const rows = list(body, k.key);
    if (rows.length) k.seed?.(state, rows);
  }
}

export function dumpRecords(kinds: readonly RecordKind[], state: ForgeState): Record<string, unknown[]> {
  return Object.fromEntries(kinds.map((k) => [k.key, k.dump(state)]));
}
