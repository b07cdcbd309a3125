/** The GraphQL simulator's shared pieces: values, object types, errors and connections. */

export type Args = Record<string, unknown>;
export type Value = unknown;

/** An object type: its name and field resolvers. */
export type Obj = { __typename: string; [field: string]: Value | ((args: Args) => Value) };

export class GqlError extends Error {}

export function connection<T>(rows: T[], args: Args, node: (x: T) => Obj, type: string): Obj {
  const first = typeof args.first === "number" ? Math.min(args.first, 100) : 100;
  const page = rows.slice(0, first);
  return {
    __typename: `${type}Connection`,
    count: rows.length,
    nodes: page.map(node),
    pageInfo: {
      __typename: "PageInfo",
      hasNextPage: rows.length > first,
      endCursor: page.length ? String(page.length) : null,
    },
  };
}
