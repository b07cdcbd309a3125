// The errors of plan and apply that no agents.yaml can predict (issue 23, item 2: whatever
// validate can know, validate says). Every error a provider module throws is one of two things:
//   - a DeclarationError (providers/common/errors.ts) carrying the id of an apply-time refusal its
//     provider lists, each foreseen by a validate rule (test/config/apply-refusals.test.ts);
//   - an UnforeseeableError, saying why no file could have foreseen it.
// test/config/throw-sites.test.ts reads every throw of src/providers/** and fails on any other.

/**
 * Why an error cannot be known from agents.yaml alone:
 * - `answer`: the provider's answer (an error status, an answer without an id, a run or an upload
 *   the provider reports as failed);
 * - `network`: the request never got an answer (connection refused, reset, timed out, aborted);
 * - `remote`: what exists at the provider (an object gone or changed by someone else, in use by
 *   sessions, a foreign object holding the name);
 * - `state`: what the state recorded (or lacks) from an earlier apply;
 * - `environment`: the machine apply runs on (environment variables, a local file that changed or
 *   became unreadable after validate read it);
 * - `internal`: an invariant of the tool itself; seeing one is a bug to report.
 */
export type Unforeseeable = "answer" | "network" | "remote" | "state" | "environment" | "internal";

export class UnforeseeableError extends Error {
  override name = "UnforeseeableError";
  constructor(
    readonly why: Unforeseeable,
    message: string,
  ) {
    super(message);
  }
}
