// A declaration that serves several providers changes only where all of them agree.
import { describe, expect, it } from "vitest";
import { conflictingEdits } from "../../src/sync/conflicts.js";
import type { Edit } from "../../src/sync/reconcile.js";

const set = (path: (string | number)[], value: unknown): Edit => ({ path, op: "set", value });
const node = "agents.writer";

describe("conflictingEdits", () => {
  it.each([
    {
      row: "one provider: its edit stands",
      results: [{ provider: "provider_c", node, edits: [set(["agents", "writer", "instructions"], "new")] }],
      conflicts: 0,
    },
    {
      row: "two providers asking for the same edit agree",
      results: [
        { provider: "provider_c", node, edits: [set(["agents", "writer", "instructions"], "new")] },
        { provider: "provider_d", node, edits: [set(["agents", "writer", "instructions"], "new")] },
      ],
      conflicts: 0,
    },
    {
      row: "two providers asking for different values conflict",
      results: [
        { provider: "provider_c", node, edits: [set(["agents", "writer", "instructions"], "c")] },
        { provider: "provider_d", node, edits: [set(["agents", "writer", "instructions"], "d")] },
      ],
      conflicts: 1,
    },
    {
      row: "a change on one provider while the other still matches the file conflicts",
      results: [
        { provider: "provider_c", node, edits: [set(["agents", "writer", "instructions"], "c")] },
        { provider: "provider_d", node, edits: [] },
      ],
      conflicts: 1,
    },
    {
      row: "each provider's own entry of a per-provider map is its own",
      results: [
        { provider: "provider_c", node, edits: [set(["agents", "writer", "model", "provider_c"], "m2")] },
        { provider: "provider_d", node, edits: [] },
      ],
      conflicts: 0,
    },
  ])("$row", ({ results, conflicts }) => {
    const problems = conflictingEdits(results);
    expect(problems).toHaveLength(conflicts);
    if (conflicts) expect(problems[0]).toContain("agents.writer serves provider_c, provider_d");
  });
});
