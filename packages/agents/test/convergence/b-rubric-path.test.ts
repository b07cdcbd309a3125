// A deployment's local paths (an outcome's `rubric_file`, a file resource's `source`) show in the
// plan as written in agents.yaml, relative to it, and state records them so: a clone in another
// folder reads the same plan. Through the CLI's steps in-process on provider_b's simulator, where
// both are uploads (provider_c sends a rubric's text, which its plan shows instead).
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { removedAfterAll, simulatorForFile } from "../e2e/project.js";
import { inProcessProject } from "./in-process.js";
import { writeSimProject } from "./sim-project.js";

const BODY = `environments:
  e:
    config:
      type: cloud
agents:
  runner:
    model: auto
    instructions: Review.
    environment: e
deployments:
  once:
    agent: runner
    environment: e
    resources:
      - type: file
        source: rubrics/notes.txt
    initial_events:
      - type: user.message
        content: Review it.
      - type: user.define_outcome
        description: A review report
        rubric_file: rubrics/review.md
`;

const b = simulatorForFile("provider_b");
let dir: string;
const agents = () => inProcessProject(dir, { AGENTS_STATE_KEY: "b-rubric" });

const dirs = removedAfterAll();
beforeAll(async () => {
  dir = await writeSimProject("provider_b", b, BODY, {
    dirs,
    prefix: "agents-b-rubric-",
    files: {
      "rubrics/review.md": "Lists every changed file.\n",
      "rubrics/notes.txt": "Context for the review.\n",
    },
  });
});

describe("deployment paths as written", () => {
  it("plan, apply and state name rubrics/review.md and rubrics/notes.txt, never the absolute path", async () => {
    const plan = await agents().plan();
    expect(plan.code, plan.text + plan.error).toBe(2);
    expect(plan.text).toContain('rubric_file: "rubrics/review.md"');
    expect(plan.text).toContain('source: "rubrics/notes.txt"');
    // The header names the state file it read (its path is the folder's); no action line does.
    const actions = plan.text.split("\n").filter((line) => !line.startsWith("state:"));
    expect(actions.join("\n")).not.toContain(dir);
    const apply = await agents().apply();
    expect(apply.code, apply.text + apply.error).toBe(0);
    expect(await fs.readFile(join(dir, "agents.state.json"), "utf8")).not.toContain(dir);
    const again = await agents().plan();
    expect(again.code, again.text).toBe(0);
    expect((await agents().destroy()).code).toBe(0);
  });
});
