// The `lifecycle:` rules (config/rules/lifecycle.ts), one row each: the field paths of
// `ignore_changes`, where `create_before_destroy` is possible, and lifecycle on an external.
import { cfg } from "../helpers.js";
import { A, agent, B, C, type RuleRow, twins } from "./rows.js";

export const LIFECYCLE_RULES: RuleRow[] = [
  {
    code: "AGENTS1800",
    rule: "ignore_changes names a field the kind has",
    ...twins(
      cfg(
        C,
        `agents:\n${agent("writer", "lifecycle:", "  ignore_changes:", "    - [[@@instructons|instructions]]")}`,
      ),
    ),
  },
  {
    code: "AGENTS1800",
    rule: "ignore_changes names nested fields with dots and `*`",
    ...twins(
      cfg(
        C,
        "vaults:\n  keys:\n    credentials:\n      - name: one\n        type: environment_variable\n        secret_name: ONE\n        secret_value: ${KEY}\n" +
          "    lifecycle:\n      ignore_changes:\n        - [[@@credentials.*.secret|credentials.*.secret_name]]",
      ),
    ),
  },
  {
    code: "AGENTS1800",
    rule: "ignore_changes takes `all` on its own, not in a list",
    invalid: cfg(C, `agents:\n${agent("writer", "lifecycle:", "  ignore_changes:", "    - @@all")}`),
    valid: cfg(C, `agents:\n${agent("writer", "lifecycle:", "  ignore_changes: all")}`),
  },
  {
    code: "AGENTS1801",
    rule: "create_before_destroy only where the provider lets the old and the new object exist at once",
    ...twins(
      cfg(A, `agents:\n${agent("writer", "lifecycle:", "  create_before_destroy: [[@@true|false]]")}`),
    ),
  },
  {
    code: "AGENTS1801",
    rule: "create_before_destroy refused by the unique external_id of a provider_b identity",
    ...twins(
      cfg(
        B,
        "identities:\n  alice:\n    external_id: user-1\n    lifecycle:\n      create_before_destroy: [[@@true|false]]",
      ),
    ),
  },
  {
    code: "AGENTS1802",
    rule: "lifecycle on an external reference has no effect",
    severity: "warning",
    invalid: cfg(
      C,
      "environments:\n  shared:\n    environment_id: env_1\n    config: {type: cloud}\n    lifecycle:\n      @@prevent_destroy: true",
    ),
    valid: cfg(C, "environments:\n  shared:\n    environment_id: env_1\n    config: {type: cloud}"),
  },
  {
    code: "AGENTS1803",
    rule: "ignore_changes of a kind compared by uploaded content takes only `all`",
    invalid: cfg(
      C,
      "skills:\n  review:\n    source: ./skills/review\n    lifecycle:\n      ignore_changes:\n        - @@description",
    ),
    valid: cfg(
      C,
      "skills:\n  review:\n    source: ./skills/review\n    lifecycle:\n      ignore_changes: all",
    ),
  },
];
