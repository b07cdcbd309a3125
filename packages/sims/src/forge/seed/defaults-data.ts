/**
 * The dataset a fresh forge simulator serves (documented in docs/sims.md): two groups with a
 * private subgroup, four projects, issues with notes, merge requests with diffs, approvals and a
 * discussion, pipelines with jobs and logs, and repository trees with files. Fixed dates keep the
 * commit shas identical from run to run.
 */
const README = `# Widgets

Small UI widgets for dashboards.

## Usage

\`\`\`ts
import { render } from "../src/widget";
render(document.body, { title: "Hello" });
\`\`\`

See docs/guide.md for the full guide.
`;

const WIDGET = `export interface WidgetOptions {
  title: string;
  width?: number;
}

export function layout(options: WidgetOptions): string {
  const width = options.width ?? 320;
  return \`<div class="widget" style="width:\${width}px">\${options.title}</div>\`;
}

export function render(target: { innerHTML: string }, options: WidgetOptions): void {
  target.innerHTML = layout(options);
}
`;

const WIDGET_CACHED = `export interface WidgetOptions {
  title: string;
  width?: number;
}

const cache = new Map<string, string>();

export function layout(options: WidgetOptions): string {
  const key = \`\${options.title}:\${options.width ?? 320}\`;
  const hit = cache.get(key);
  if (hit) return hit;
  const width = options.width ?? 320;
  const html = \`<div class="widget" style="width:\${width}px">\${options.title}</div>\`;
  cache.set(key, html);
  return html;
}

export function render(target: { innerHTML: string }, options: WidgetOptions): void {
  target.innerHTML = layout(options);
}
`;

const CI = `stages: [build, test]

build:
  stage: build
  script: make build

test:
  stage: test
  script: make test

lint:
  stage: test
  script: make lint
`;

const TRACE_OK = (name: string) =>
  `Running with gitlab-runner 17.6.0 (simulated)\n$ make ${name}\n${name}: ok\nJob succeeded\n`;

export const DEFAULT_DATASET = {
  groups: [
    {
      path: "acme",
      name: "Acme",
      description: "Acme Corporation",
      visibility: "public",
      created_at: "2026-01-05T09:00:00.000Z",
      members: [
        { user: "alice", access_level: 50 },
        { user: "bob", access_level: 30 },
      ],
    },
    {
      path: "platform",
      name: "Platform",
      parent: "acme",
      description: "Infrastructure (private)",
      visibility: "private",
      created_at: "2026-01-05T09:05:00.000Z",
      members: [{ user: "carol", access_level: 20 }],
    },
    {
      path: "labs",
      name: "Labs",
      description: "Experiments",
      visibility: "internal",
      created_at: "2026-01-06T09:00:00.000Z",
      members: [{ user: "bob", access_level: 50 }],
    },
  ],
  projects: [
    {
      namespace: "acme",
      path: "widgets",
      name: "Widgets",
      description: "Dashboard widgets library",
      visibility: "public",
      creator: "alice",
      created_at: "2026-01-10T10:00:00.000Z",
      files: {
        "README.md": README,
        "package.json": '{\n  "name": "@acme/widgets",\n  "version": "1.4.0",\n  "type": "module"\n}\n',
        "src/widget.ts": WIDGET,
        "src/index.ts": 'export * from "../widget";\n',
        "docs/guide.md": "# Guide\n\nWidgets render into any element with an innerHTML property.\n",
        ".gitlab-ci.yml": CI,
      },
      tags: { "v1.4.0": "Release 1.4.0" },
      branches: {
        "feature/layout-cache": {
          message: "Cache widget layouts\n\nLarge dashboards re-render the same widgets many times.",
          created_at: "2026-01-12T15:00:00.000Z",
          files: {
            "src/widget.ts": WIDGET_CACHED,
            "src/cache.test.ts": 'import { layout } from "../widget";\n\nlayout({ title: "a" });\n',
          },
        },
        "fix/readme-typo": {
          message: "Fix typo in README",
          created_at: "2026-01-13T08:30:00.000Z",
          files: { "README.md": README.replace("Small UI widgets", "Small UI widgets,") },
        },
      },
    },
    {
      namespace: "acme/platform",
      path: "infra",
      name: "Infra",
      description: "Terraform for the platform",
      visibility: "private",
      creator: "alice",
      created_at: "2026-01-11T10:00:00.000Z",
      files: {
        "README.md": "# Infra\n\nTerraform modules for the platform.\n",
        "terraform/main.tf": 'resource "null_resource" "runner" {}\n',
      },
    },
    {
      namespace: "bob",
      path: "dotfiles",
      name: "dotfiles",
      description: "Bob's dotfiles",
      visibility: "public",
      creator: "bob",
      created_at: "2026-01-07T10:00:00.000Z",
      files: { "README.md": "# dotfiles\n", ".bashrc": "export EDITOR=vim\nalias ll='ls -la'\n" },
    },
    {
      namespace: "labs",
      path: "experiments",
      name: "Experiments",
      description: "Internal experiments",
      visibility: "internal",
      creator: "bob",
      created_at: "2026-01-08T10:00:00.000Z",
      files: { "README.md": "# Experiments\n\nNothing to see yet.\n" },
    },
  ],
  issues: [
    {
      project: "acme/widgets",
      title: "Widgets render slowly on large dashboards",
      description: "With 200 widgets the page takes 3 s to render. Layout is recomputed every time.",
      labels: ["bug", "performance"],
      author: "bob",
      assignees: ["alice"],
      created_at: "2026-01-11T09:00:00.000Z",
      notes: [
        { author: "alice", body: "Reproduced. Layout is not cached." },
        { author: "bob", body: "Thanks! A cache keyed by options should do." },
      ],
    },
    {
      project: "acme/widgets",
      title: "Add a dark theme",
      description: "Dashboards at night are too bright.",
      labels: ["feature"],
      author: "carol",
      created_at: "2026-01-12T09:00:00.000Z",
    },
    {
      project: "acme/widgets",
      title: "Crash on empty title",
      description: "render() throws when the title is empty.",
      labels: ["bug"],
      author: "alice",
      state: "closed",
      closed_by: "alice",
      created_at: "2026-01-10T12:00:00.000Z",
      closed_at: "2026-01-10T16:00:00.000Z",
    },
    {
      project: "acme/platform/infra",
      title: "Rotate runner tokens",
      description: "Runner registration tokens are older than 90 days.",
      labels: ["security"],
      author: "alice",
      confidential: true,
      created_at: "2026-01-12T11:00:00.000Z",
    },
  ],
  merge_requests: [
    {
      project: "acme/widgets",
      source_branch: "feature/layout-cache",
      title: "Cache widget layouts",
      description: "Closes #1. Caches the computed layout per title and width.",
      labels: ["performance"],
      author: "alice",
      reviewers: ["bob"],
      approvals_required: 1,
      created_at: "2026-01-12T15:30:00.000Z",
      discussions: [
        {
          notes: [
            { author: "bob", body: "Should the cache be bounded? Titles are user input." },
            { author: "alice", body: "Good point, I will add an LRU limit." },
          ],
        },
      ],
    },
    {
      project: "acme/widgets",
      source_branch: "fix/readme-typo",
      title: "Fix typo in README",
      description: "",
      labels: ["documentation"],
      author: "bob",
      created_at: "2026-01-13T08:35:00.000Z",
    },
  ],
  pipelines: [
    {
      project: "acme/widgets",
      ref: "main",
      source: "push",
      user: "alice",
      created_at: "2026-01-10T10:01:00.000Z",
      jobs: [
        { name: "build", stage: "build", status: "success", trace: TRACE_OK("build") },
        { name: "test", stage: "test", status: "success", trace: TRACE_OK("test") },
        { name: "lint", stage: "test", status: "success", trace: TRACE_OK("lint") },
      ],
    },
    {
      project: "acme/widgets",
      ref: "feature/layout-cache",
      source: "merge_request_event",
      user: "alice",
      created_at: "2026-01-12T15:31:00.000Z",
      jobs: [
        { name: "build", stage: "build", status: "success", trace: TRACE_OK("build") },
        {
          name: "test",
          stage: "test",
          status: "failed",
          trace:
            "Running with gitlab-runner 17.6.0 (simulated)\n$ make test\nFAIL src/cache.test.ts\n  expected layout to be cached\nERROR: Job failed: exit code 1\n",
        },
        { name: "lint", stage: "test", status: "success", trace: TRACE_OK("lint") },
      ],
    },
  ],
};
