// Issue 10, provider_a: an edited SKILL.md publishes a new skill version and the agents that use
// the skill follow it (plan shows the agent's update); an official skill declared without a
// version validates and applies alike.
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { removedAfterAll, simState, simulatorForFile, startProviderAInstantUploads } from "../e2e/project.js";
import { inProcessProject } from "./in-process.js";
import { writeSimProject } from "./sim-project.js";

const BODY = `skills:
  charts:
    provider: provider_a
    source: skills/charts
agents:
  analyst:
    provider: provider_a
    model: qwen-max
    instructions: Analyse.
    skills:
      - charts
      - type: official
        skill_id: pdf
`;

const SKILL = "---\nname: charts\ndescription: Draws charts\n---\nRead the CSV and draw it.\n";

const a = simulatorForFile("provider_a", startProviderAInstantUploads);
let dir: string;
/** The CLI's steps in-process (in-process.ts), with the variables the CLI ran with. */
const agents = () => inProcessProject(dir, { AGENTS_STATE_KEY: "skill-key" });

interface SimAgent {
  id: string;
  skills?: Array<{ type: string; skill_id: string; version?: string }>;
  archived_at?: string;
}

async function pinnedVersion(skillId: string): Promise<string | undefined> {
  const dump = (await simState(a)) as { agents: SimAgent[] };
  const agent = dump.agents.find((x) => !x.archived_at);
  return agent?.skills?.find((s) => s.skill_id === skillId)?.version;
}

const dirs = removedAfterAll();
beforeAll(async () => {
  dir = await writeSimProject("provider_a", a, BODY, {
    dirs,
    prefix: "agents-a-skill-",
    files: { "skills/charts/SKILL.md": SKILL },
  });
});

describe("provider_a skill versions", () => {
  it("applies an official skill without a version, as validate accepted it", async () => {
    expect((await agents().validate()).code).toBe(0);
    const apply = await agents().apply();
    expect(apply.error).toBe("");
    expect(apply.code).toBe(0);
    expect((await agents().plan()).code).toBe(0);
  });

  it("an edited SKILL.md moves the agent to the new version", async () => {
    const state = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));
    const skill = state.resources['provider_a.skills["charts"]'];
    const first = await pinnedVersion(skill.id);
    expect(first).toBeDefined();
    await fs.writeFile(join(dir, "skills", "charts", "SKILL.md"), `${SKILL}Label both axes.\n`);
    const plan = await agents().plan();
    expect(plan.code).toBe(2);
    expect(plan.text).toMatch(/provider_a\.skills\["charts"\] \([^)]+\): update/);
    expect(plan.text).toMatch(/provider_a\.agents\["analyst"\] \([^)]+\): update, .*new version/);
    expect(plan.text).toContain("~ skills.charts.version:");
    expect((await agents().apply()).code).toBe(0);
    const second = await pinnedVersion(skill.id);
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect((await agents().plan()).code).toBe(0);
    expect((await agents().destroy()).code).toBe(0);
  });
});
