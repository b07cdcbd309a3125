import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { paginate } from "../../src/managed/http.js";

interface Item {
  id: string;
  created_at: string;
}

const key = (i: Item) => [i.created_at, i.id];

/** Walks every page of a list, optionally deleting items between pages. */
function walk(items: Item[], limit: number, order: "asc" | "desc", deleteBetween: Set<string>): string[] {
  let live = [...items];
  const seen: string[] = [];
  let page: string | undefined;
  for (let guard = 0; guard < 1000; guard++) {
    const p = paginate(live, key, { limit, page, order });
    expect(p.data.length).toBeLessThanOrEqual(limit);
    seen.push(...p.data.map((i) => i.id));
    live = live.filter((i) => !deleteBetween.has(i.id) || seen.includes(i.id));
    if (!p.next_page) return seen;
    page = p.next_page;
  }
  throw new Error("pagination did not terminate");
}

const itemsArb = fc
  .uniqueArray(
    fc.record({ id: fc.string({ minLength: 1, maxLength: 6 }), t: fc.integer({ min: 0, max: 20 }) }),
    {
      selector: (r) => r.id,
      maxLength: 60,
    },
  )
  .map((rs) => rs.map((r) => ({ id: r.id, created_at: new Date(1_700_000_000_000 + r.t).toISOString() })));

describe("keyset pagination (every list of provider_c and provider_d)", () => {
  it("visits every item exactly once, in order, for any page size and direction", () => {
    fc.assert(
      fc.property(
        itemsArb,
        fc.integer({ min: 1, max: 25 }),
        fc.constantFrom("asc", "desc"),
        (items, limit, order) => {
          const seen = walk(items, limit, order as "asc" | "desc", new Set());
          const sorted = [...items].sort((a, b) => {
            if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
            return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
          });
          const want = sorted.map((i) => i.id);
          expect(seen).toEqual(order === "asc" ? want : want.reverse());
        },
      ),
      { numRuns: 200 },
    );
  });

  it("deleting unseen items between pages never repeats an item nor skips a surviving one", () => {
    fc.assert(
      fc.property(itemsArb, fc.integer({ min: 1, max: 10 }), fc.array(fc.nat()), (items, limit, picks) => {
        const doomed = new Set(
          picks.map((p) => items[p % Math.max(1, items.length)]?.id).filter((x): x is string => !!x),
        );
        const seen = walk(items, limit, "desc", doomed);
        expect(new Set(seen).size).toBe(seen.length);
        for (const i of items) if (!doomed.has(i.id)) expect(seen).toContain(i.id);
      }),
      { numRuns: 200 },
    );
  });

  it("a bidirectional page's prev_page leads back to the previous page", () => {
    fc.assert(
      fc.property(itemsArb, fc.integer({ min: 1, max: 10 }), (items, limit) => {
        const first = paginate(items, key, { limit, order: "desc" }, { bidirectional: true });
        expect(first.prev_page).toBeNull();
        if (!first.next_page) return;
        const second = paginate(
          items,
          key,
          { limit, page: first.next_page, order: "desc" },
          { bidirectional: true },
        );
        const back = paginate(
          items,
          key,
          { limit, page: second.prev_page ?? undefined, order: "desc" },
          { bidirectional: true },
        );
        expect(back.data).toEqual(first.data);
      }),
      { numRuns: 200 },
    );
  });
});
