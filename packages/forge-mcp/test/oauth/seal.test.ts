import { describe, expect, it } from "vitest";
import { Sealer } from "../../src/oauth/seal.js";

const key = (n: number) => Buffer.alloc(32, n);

describe("sealed values (stateless mode)", () => {
  it("round-trips data for its purpose", () => {
    const s = new Sealer(key(1));
    const v = s.seal("state", { a: 1 }, 60_000);
    expect(s.open("state", v)?.data).toEqual({ a: 1 });
  });

  it("rejects a tampered value (every byte flip)", () => {
    const s = new Sealer(key(1));
    const raw = Buffer.from(s.seal("code", { t: "x" }, 60_000), "base64url");
    for (let i = 0; i < raw.length; i++) {
      const t = Buffer.from(raw);
      t[i] = t[i]! ^ 0x01;
      expect(s.open("code", t.toString("base64url"))).toBeUndefined();
    }
  });

  it("rejects a value sealed with a foreign secret", () => {
    const v = new Sealer(key(2)).seal("client", { r: [] }, undefined);
    expect(new Sealer(key(1)).open("client", v)).toBeUndefined();
  });

  it("rejects a value sealed for another purpose", () => {
    const s = new Sealer(key(1));
    expect(s.open("code", s.seal("state", {}, 60_000))).toBeUndefined();
  });

  it("accepts values sealed with the previous secret after rotation, and seals with the new one", () => {
    const old = new Sealer(key(1));
    const v = old.seal("client", { n: 1 }, undefined);
    const rotated = new Sealer(key(2), key(1));
    expect(rotated.open("client", v)?.data).toEqual({ n: 1 });
    const fresh = rotated.seal("client", { n: 2 }, undefined);
    expect(old.open("client", fresh)).toBeUndefined();
    expect(new Sealer(key(2)).open("client", fresh)?.data).toEqual({ n: 2 });
  });

  it("rejects an expired value", () => {
    let t = 1_000_000;
    const s = new Sealer(key(1), undefined, () => t);
    const v = s.seal("code", {}, 600_000);
    t += 600_001;
    expect(s.open("code", v)).toBeUndefined();
  });

  it("rejects garbage without throwing", () => {
    const s = new Sealer(key(1));
    for (const g of ["", "abc", "!!!", "A".repeat(100), "a".repeat(20_000)])
      expect(s.open("state", g)).toBeUndefined();
  });
});
