import { describe, expect, it } from "vitest";
import { BOB, freshForge, send } from "../helpers.js";

// rest/lint.ts over HTTP on the default dataset: alice owns acme/widgets (project 1) and the acme
// group; bob is a Developer in both.
const { f } = freshForge();

const P = "/projects/1";

describe("CI lint", () => {
  it.each([
    ["a valid job", "build:\n  script: make\n", true, []],
    ["no job", "stages: [build]\n", false, ["jobs config should contain at least one visible job"]],
    [
      "a job without script",
      "build:\n  stage: build\n",
      false,
      ["jobs:build config should implement the script:, run:, or trigger: keyword"],
    ],
    [
      "an unknown stage",
      "stages: [build]\nx:\n  stage: deploy\n  script: a\n",
      false,
      ["x job: chosen stage deploy does not exist; available stages are build"],
    ],
    ["not YAML", "build: [\n", false, [expect.stringMatching(/^Invalid configuration format/)]],
  ])("%s", async (_n, content, valid, errors) => {
    const r = await f.api(`${P}/ci/lint`, send("POST", { content }));
    expect(r.body).toMatchObject({ valid, errors });
    expect(r.body.merged_yaml === null).toBe(!valid);
  });

  it("the project's own .gitlab-ci.yml, with its jobs", async () => {
    const r = await f.api(`${P}/ci/lint?include_jobs=true`);
    expect(r.body.valid).toBe(true);
    expect(r.body.jobs.map((j: { name: string }) => j.name)).toEqual(["build", "test", "lint"]);
  });

  // GraphQL's ciConfig, the pipeline editor's lint: the same checks, as a CiConfig
  const ciConfig = async (content: string, headers: Record<string, string> = {}) => {
    const query =
      'query($c: String!) { ciConfig(projectPath: "acme/widgets", content: $c) { status errors mergedYaml stages { nodes { name groups { nodes { name jobs { nodes { name script } } } } } } } }';
    const r = await fetch(`${f.url.replace(/\/api\/v4$/, "")}/api/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sim-forge-pat", ...headers },
      body: JSON.stringify({ query, variables: { c: content } }),
    });
    return (await r.json()) as any;
  };

  it.each([
    [
      "a valid job",
      "build:\n  script: make\n",
      "VALID",
      [],
      [
        {
          name: "test",
          groups: { nodes: [{ name: "build", jobs: { nodes: [{ name: "build", script: ["make"] }] } }] },
        },
      ],
    ],
    ["no job", "stages: [build]\n", "INVALID", ["jobs config should contain at least one visible job"], []],
  ])("ciConfig: %s", async (_n, content, status, errors, stages) => {
    const r = await ciConfig(content);
    expect(r.data.ciConfig).toMatchObject({ status, errors, stages: { nodes: stages } });
  });

  it("ciConfig needs developer access to the project", async () => {
    const r = await ciConfig("build:\n  script: make\n", { authorization: "Bearer sim-forge-pat-carol" });
    expect(r.errors[0].message).toMatch(/don't have permission/);
    expect(
      (await ciConfig("build:\n  script: make\n", { authorization: `Bearer ${BOB["private-token"]}` })).data
        .ciConfig.status,
    ).toBe("VALID");
  });
});
