import { describe, expect, it } from "vitest";
import { acyclicOrder, dependencyCycles, dependencyOrder } from "../../src/model/graph.js";

type Node = { id: string; deps: string[] };
const edges = { id: (n: Node) => n.id, deps: (n: Node) => n.deps };
const n = (id: string, ...deps: string[]): Node => ({ id, deps });
const ids = (nodes: Node[]) => nodes.map((node) => node.id);

describe("the dependency graph", () => {
  it("orders each node after its dependencies, in the order given otherwise", () => {
    const { order, cyclic } = dependencyOrder([n("c", "b"), n("a"), n("b", "a", "ghost", "b")], edges);
    expect(ids(order)).toEqual(["a", "b", "c"]);
    expect(cyclic).toEqual([]);
    expect(ids(dependencyOrder([n("x"), n("y"), n("z")], edges).order)).toEqual(["x", "y", "z"]);
  });

  it("keeps nodes on a cycle, and those waiting on one, apart from the order", () => {
    const { order, cyclic } = dependencyOrder([n("a", "b"), n("b", "a"), n("c", "a"), n("d")], edges);
    expect(ids(order)).toEqual(["d"]);
    expect(ids(cyclic)).toEqual(["a", "b", "c"]);
  });

  it("names each cycle once, as a path back to where it starts", () => {
    const cycles = dependencyCycles([n("a", "b"), n("b", "c", "a"), n("c", "a"), n("d", "d")], edges);
    expect(cycles).toEqual([
      ["a", "b", "c", "a"],
      ["a", "b", "a"],
    ]);
  });

  it("treats a cycle reaching plan or apply as a bug, with its path", () => {
    expect(ids(acyclicOrder([n("b", "a"), n("a")], edges))).toEqual(["a", "b"]);
    expect(() => acyclicOrder([n("a", "b"), n("b", "a")], edges)).toThrow(
      "internal error: dependency cycle a → b → a; validation should have rejected it",
    );
  });
});
