// What forge-mcp is expected to do in each scenario of the official MCP conformance suite
// (@modelcontextprotocol/conformance), and the rule that judges a run against it. The runner is
// scripts/conformance.mjs; docs/forge-mcp.md ("The official conformance suite") explains the rows.
//
// One row per scenario, with its expectation at the 2025 revisions (2025-03-26, 2025-06-18,
// 2025-11-25; the suite runs each scenario at the revisions it belongs to) and at 2026-07-28:
//   "pass"                      it must pass, in every mode the runner tries;
//   "pending-item-2"            it fails today because forge-mcp does not speak 2026-07-28 yet
//                               (issue 36 item 2); it must FAIL, so that the row is flipped to
//                               "pass" in the change that makes it pass;
//   "not-applicable: <reason>"  it tests something forge-mcp does not have (a prompt, a resource,
//                               one of the suite's fixture tools); its result is shown, not judged.
// A scenario the suite runs that has no row here fails the run (a new suite version brought it:
// add its row), and so does a row whose scenario no run met (the suite dropped or renamed it).

const noPrompts = "not-applicable: forge-mcp has no prompts (no prompts capability)";
const noResources = "not-applicable: forge-mcp has no resources (no resources capability)";
const noLogging = "not-applicable: forge-mcp declares no logging capability";
const noCompletions =
  "not-applicable: forge-mcp has no prompts or resource templates to complete (no completions capability)";
/** A scenario that calls one of the suite's own test tools, which a GitLab server does not have. */
const fixture = (tool, what) =>
  `not-applicable: calls the suite's fixture tool ${tool} (${what}); forge-mcp's tools are GitLab's`;
const pending = "pending-item-2";
/** Rows of several scenarios that share their expectations. */
const rows = (scenarios, expect) => scenarios.map((scenario) => ({ scenario, ...expect }));

/** @type {import("./conformance-table.d.mts").Row[]} */
export const TABLE = [
  // lifecycle and transport
  { scenario: "server-initialize", at2025: "pass" },
  { scenario: "server-session-lifecycle", at2025: "pass" },
  { scenario: "server-stateless", at2026: pending },
  { scenario: "ping", at2025: "pass" },
  { scenario: "dns-rebinding-protection", at2025: "pass", at2026: pending },
  { scenario: "server-sse-polling", at2025: "pass" },
  { scenario: "server-sse-multiple-streams", at2025: "pass", at2026: pending },
  { scenario: "caching", at2026: pending },
  { scenario: "http-header-validation", at2026: pending },
  { scenario: "http-custom-header-server-validation", at2026: pending },
  // tools
  { scenario: "tools-list", at2025: "pass", at2026: pending },
  {
    scenario: "tools-call-simple-text",
    at2025: fixture("test_simple_text", "a fixed text result"),
    at2026: fixture("test_simple_text", "a fixed text result"),
  },
  {
    scenario: "tools-call-error",
    at2025: fixture("test_error_handling", "a tool that always fails"),
    at2026: fixture("test_error_handling", "a tool that always fails"),
  },
  {
    scenario: "tools-call-image",
    at2025: fixture("test_image_content", "an image result"),
    at2026: fixture("test_image_content", "an image result"),
  },
  {
    scenario: "tools-call-audio",
    at2025: fixture("test_audio_content", "an audio result"),
    at2026: fixture("test_audio_content", "an audio result"),
  },
  {
    scenario: "tools-call-embedded-resource",
    at2025: fixture("test_embedded_resource", "an embedded resource"),
    at2026: fixture("test_embedded_resource", "an embedded resource"),
  },
  {
    scenario: "tools-call-mixed-content",
    at2025: fixture("test_multiple_content_types", "text, image and resource in one result"),
    at2026: fixture("test_multiple_content_types", "text, image and resource in one result"),
  },
  { scenario: "tools-call-with-logging", at2025: noLogging },
  {
    scenario: "tools-call-with-progress",
    at2025: fixture("test_tool_with_progress", "progress notifications"),
    at2026: fixture("test_tool_with_progress", "progress notifications"),
  },
  { scenario: "tools-call-sampling", at2025: fixture("test_sampling", "asks the client for a completion") },
  { scenario: "tools-call-elicitation", at2025: fixture("test_elicitation", "asks the user a question") },
  {
    scenario: "elicitation-sep1034-defaults",
    at2025: fixture("test_elicitation_sep1034_defaults", "an elicitation with default values"),
  },
  {
    scenario: "elicitation-sep1330-enums",
    at2025: fixture("test_elicitation_sep1330_enums", "an elicitation with enum fields"),
  },
  {
    scenario: "json-schema-2020-12",
    at2025: fixture("json_schema_2020_12_tool", "an input schema using 2020-12 keywords"),
    at2026: fixture("json_schema_2020_12_tool", "an input schema using 2020-12 keywords"),
  },
  // multi-round-trip requests (2026-07-28): forge-mcp will answer destructive-tool confirmation and
  // step-up with input_required (item 2); the scenarios drive the suite's own test tools, so item 2
  // either serves what they need or turns these rows into not-applicable with its reason
  ...rows(
    [
      "input-required-result-basic-elicitation",
      "input-required-result-basic-sampling",
      "input-required-result-basic-list-roots",
      "input-required-result-request-state",
      "input-required-result-multiple-input-requests",
      "input-required-result-multi-round",
      "input-required-result-missing-input-response",
      "input-required-result-non-tool-request",
      "input-required-result-result-type",
      "input-required-result-unsupported-methods",
      "input-required-result-tampered-state",
      "input-required-result-capability-check",
      "input-required-result-ignore-extra-params",
    ],
    { at2026: pending },
  ),
  { scenario: "input-required-result-validate-input", at2026: "pass" },
  // prompts, resources, logging, completions: capabilities forge-mcp does not declare
  { scenario: "logging-set-level", at2025: noLogging },
  { scenario: "completion-complete", at2025: noCompletions, at2026: noCompletions },
  ...rows(["resources-list", "resources-read-text", "resources-read-binary", "resources-templates-read"], {
    at2025: noResources,
    at2026: noResources,
  }),
  ...rows(["resources-subscribe", "resources-unsubscribe"], { at2025: noResources }),
  { scenario: "sep-2164-resource-not-found", at2026: noResources },
  ...rows(
    [
      "prompts-list",
      "prompts-get-simple",
      "prompts-get-with-args",
      "prompts-get-embedded-resource",
      "prompts-get-with-image",
    ],
    { at2025: noPrompts, at2026: noPrompts },
  ),
  // the authorization server (OAuth modes; the suite runs these once, at no particular revision)
  { scenario: "authorization-server-metadata-endpoint", at2025: "pass" },
  { scenario: "authorization-code-grant", at2025: "pass" },
];

/** The row's expectation for a scenario run at `revision` (a 2025-* date, or 2026-07-28). */
export function expectationFor(table, scenario, revision) {
  const row = table.find((r) => r.scenario === scenario);
  if (!row) return undefined;
  return revision.startsWith("2025-") ? row.at2025 : revision === "2026-07-28" ? row.at2026 : undefined;
}

/**
 * Judges each result against the table. A result is ok when it is what its row says: "pass" passes,
 * "pending-item-2" fails, "not-applicable" either. `stale` names rows no result met.
 */
export function judge(results, table) {
  const verdicts = results.map((r) => {
    const expect = expectationFor(table, r.scenario, r.revision);
    if (expect === undefined)
      return {
        ...r,
        expect,
        ok: false,
        note: `no row for ${r.scenario} at ${r.revision} in scripts/conformance-table.mjs: add one`,
      };
    if (expect === "pass")
      return { ...r, expect, ok: r.outcome === "pass", note: r.outcome === "pass" ? "" : r.detail };
    if (expect === "pending-item-2")
      return {
        ...r,
        expect,
        ok: r.outcome === "fail",
        note:
          r.outcome === "fail"
            ? `pending issue 36 item 2: ${r.detail}`
            : 'passes now: change its row in scripts/conformance-table.mjs to "pass"',
      };
    return {
      ...r,
      expect,
      ok: true,
      note: `${expect.slice("not-applicable: ".length)} (suite: ${r.outcome})`,
    };
  });
  const met = new Set(results.map((r) => r.scenario));
  const stale = table.filter((row) => !met.has(row.scenario)).map((row) => row.scenario);
  return { verdicts, stale, failed: stale.length > 0 || verdicts.some((v) => !v.ok) };
}
