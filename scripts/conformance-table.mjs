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
/** Rows of several scenarios that share their expectations. */
const rows = (scenarios, expect) => scenarios.map((scenario) => ({ scenario, ...expect }));

/** @type {import("./conformance-table.d.mts").Row[]} */
export const TABLE = [
  // lifecycle and transport
  { scenario: "server-initialize", at2025: "pass" },
  { scenario: "server-session-lifecycle", at2025: "pass" },
  {
    scenario: "server-stateless",
    at2026:
      "not-applicable: every check passes but the four that need the suite's diagnostic tools (test_missing_capability, test_streaming_elicitation, test_logging_tool), which it reports as not testable",
  },
  { scenario: "ping", at2025: "pass" },
  { scenario: "dns-rebinding-protection", at2025: "pass", at2026: "pass" },
  { scenario: "server-sse-polling", at2025: "pass" },
  { scenario: "server-sse-multiple-streams", at2025: "pass", at2026: "pass" },
  {
    scenario: "caching",
    at2026:
      "not-applicable: also lists prompts and resources, which forge-mcp has not (its tools/list check, sep-2549-tools-list-caching-hints, passes)",
  },
  { scenario: "http-header-validation", at2026: "pass" },
  {
    scenario: "http-custom-header-server-validation",
    at2026:
      "not-applicable: no forge-mcp tool declares an x-mcp-header parameter (the suite reports each check as not testable)",
  },
  // tools
  { scenario: "tools-list", at2025: "pass", at2026: "pass" },
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
  // multi-round-trip requests (2026-07-28): forge-mcp answers a destructive tool's confirmation
  // with input_required (test/mcp/rev2026.test.ts has its rows); these scenarios drive the suite's
  // own fixture tools, except the three that check what any server must do
  ...[
    [
      "input-required-result-basic-elicitation",
      "test_input_required_result_elicitation",
      "asks one elicitation",
    ],
    ["input-required-result-basic-sampling", "test_input_required_result_sampling", "asks one sampling"],
    ["input-required-result-basic-list-roots", "test_input_required_result_list_roots", "asks for roots"],
    ["input-required-result-request-state", "test_input_required_result_request_state", "echoes its state"],
    [
      "input-required-result-multiple-input-requests",
      "test_input_required_result_multiple_inputs",
      "asks several at once",
    ],
    ["input-required-result-multi-round", "test_input_required_result_multi_round", "asks in three rounds"],
    ["input-required-result-result-type", "test_input_required_result_elicitation", "asks one elicitation"],
    ["input-required-result-tampered-state", "test_input_required_result_tampered_state", "seals its state"],
    [
      "input-required-result-capability-check",
      "test_input_required_result_capabilities",
      "asks by the declared capabilities",
    ],
  ].map(([scenario, tool, what]) => ({ scenario, at2026: fixture(tool, what) })),
  { scenario: "input-required-result-non-tool-request", at2026: noPrompts },
  ...rows(
    [
      "input-required-result-missing-input-response",
      "input-required-result-unsupported-methods",
      "input-required-result-ignore-extra-params",
    ],
    { at2026: "pass" },
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
