import { describe, expect, it } from "vitest";
import {
  logicalName,
  metadataPatch,
  ownerOf,
  userMetadata,
  withOwnership,
} from "../../../src/providers/common/ownership.js";

describe("ownership metadata", () => {
  const owner = { project: "demo", resource: 'provider_b.agents["writer"]' };
  it("injects both keys; user keys win", () => {
    expect(withOwnership({ "agents.project": "mine", team: "a" }, owner)).toEqual({
      "agents.project": "mine",
      "agents.resource": owner.resource,
      team: "a",
    });
  });
  it("reads the owner and strips agents.* for export", () => {
    const m = withOwnership({ team: "a" }, owner);
    expect(ownerOf(m)).toEqual(owner);
    expect(userMetadata(m)).toEqual({ team: "a" });
  });
  it("tombstones dropped user keys, leaves agents.* alone", () => {
    expect(metadataPatch({ team: "a", old: "x", "agents.project": "p" }, { team: "b" })).toEqual({
      team: "b",
      old: null,
    });
    expect(metadataPatch({ old: "x" }, {}, "")).toEqual({ old: "" });
  });
  it("derives the logical name from the address", () => {
    expect(logicalName(owner)).toBe("writer");
  });
});
