// provider_d has no skill deletion (docs/providers.md): a skill dropped from the file, or the whole
// project destroyed, is released from state and stays on the provider. Through the CLI's steps
// in-process on provider_d's simulator, the plan says so and apply and destroy report "released
// from state", never "deleted" or "destroyed".
import { cpSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { editConfig, removedAfterAll, simulatorForFile } from "../e2e/project.js";
import { inProcessProject } from "./in-process.js";
import { writeSimProject } from "./sim-project.js";

const SKILL = fileURLToPath(new URL("../e2e/fixtures/multi-cd/skills/summarize", import.meta.url));
const BODY = `skills:
  summarize:
    source: skills/summarize
  digest:
    source: skills/summarize
`;
const d = simulatorForFile("provider_d");
let dir: string;
const agents = () => inProcessProject(dir, { AGENTS_STATE_KEY: "d-skill" });

const dirs = removedAfterAll();
beforeAll(async () => {
  dir = await writeSimProject("provider_d", d, BODY, { dirs, prefix: "agents-d-skill-" });
  cpSync(SKILL, join(dir, "skills", "summarize"), { recursive: true });
});

describe("a provider_d skill is released, not deleted", () => {
  it("dropped from the file: the plan and apply say released from state", async () => {
    expect((await agents().apply()).code).toBe(0);
    await editConfig(dir, "  digest:\n    source: skills/summarize\n", "");
    const plan = await agents().plan();
    expect(plan.code).toBe(2);
    expect(plan.text).toMatch(
      /provider_d\.skills\["digest"\] \(\S+\): delete, no longer declared in the config; provider_d cannot delete skills, so it is only released from state and remains on provider_d/,
    );
    const apply = await agents().apply();
    expect(apply.code, apply.text + apply.error).toBe(0);
    expect(apply.text).toContain('provider_d.skills["digest"]: released from state');
    expect(apply.text).not.toMatch(/skills\["digest"\]: deleted/);
    expect(apply.text).toContain("0 deleted, 1 released from state");
  });

  it("destroy: released from state, and the summary counts no skill as destroyed", async () => {
    const destroy = await agents().destroy();
    expect(destroy.code, destroy.text + destroy.error).toBe(0);
    expect(destroy.text).toContain('provider_d.skills["summarize"]: released from state');
    expect(destroy.text).toContain("0 destroyed, 1 released from state");
  });
});
