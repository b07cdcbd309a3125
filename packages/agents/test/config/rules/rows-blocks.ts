import { cfg } from "../helpers.js";
import { agent, B, C, type RuleRow } from "./rows.js";

/**
 * A row's two files from one text: `{{bad||good}}` at each place they differ (addresses hold
 * brackets and bars, so the rows.ts `twins` markers cannot be used); `@@` marks where the rule
 * reports, and is dropped from the valid file.
 */
function pair(text: string): Pick<RuleRow, "invalid" | "valid"> {
  const choice = /\{\{(.*?)\|\|(.*?)\}\}/gs;
  if (!text.includes("@@")) throw new Error(`no @@ in ${text}`);
  return { invalid: text.replace(choice, "$1"), valid: text.replace(choice, "$2").replace("@@", "") };
}

const W = 'provider_c.agents["writer"]';
const AUTHOR = 'provider_c.agents["author"]';
const author = `agents:\n${agent("author")}`;
const env = "environments:\n  env:\n    config:\n      type: cloud";

/** Rule rows for the `moved:`, `import:` and `removed:` lists (config/rules/blocks.ts). */
export const BLOCKS_RULES: RuleRow[] = [
  {
    code: "AGENTS1070",
    rule: "a moved address in shorthand: written as plans print it",
    ...pair(cfg(C, `${author}\nmoved:\n  - from: @@{{provider_c.agents.writer||${W}}}\n    to: ${AUTHOR}`)),
  },
  {
    code: "AGENTS1070",
    rule: "an import address with an unknown kind",
    ...pair(
      cfg(
        C,
        `${env}\nimport:\n  - to: @@{{provider_c.environment["env"]||provider_c.environments["env"]}}\n    id: env_1`,
      ),
    ),
  },
  {
    code: "AGENTS1070",
    rule: "a removed address with an unknown provider",
    ...pair(
      cfg(C, `${author}\nremoved:\n  - from: @@{{provider_x||provider_c}}.agents["old"]\n    destroy: false`),
    ),
  },
  {
    code: "AGENTS1071",
    rule: "a move changes the kind",
    ...pair(
      cfg(
        C,
        `${author}\n${env}\nmoved:\n  - from: provider_c.{{agents||environments}}["old"]\n    to: @@provider_c.environments["env"]`,
      ),
    ),
  },
  {
    code: "AGENTS1072",
    rule: "a moved from that is still declared",
    ...pair(
      cfg(
        C,
        `agents:\n${agent("author")}\n${agent("{{writer||editor}}")}\nmoved:\n  - from: @@${W}\n    to: ${AUTHOR}`,
      ),
    ),
  },
  {
    code: "AGENTS1072",
    rule: "a removed from that is still declared",
    ...pair(
      cfg(
        C,
        `agents:\n${agent("author")}\nremoved:\n  - from: @@provider_c.agents["{{author||old}}"]\n    destroy: false`,
      ),
    ),
  },
  {
    code: "AGENTS1073",
    rule: "a moved to that is not declared",
    ...pair(cfg(C, `${author}\nmoved:\n  - from: ${W}\n    to: @@provider_c.agents["{{autor||author}}"]`)),
  },
  {
    code: "AGENTS1073",
    rule: "an import to that is not declared for that provider",
    ...pair(
      cfg(C, `${env}\nimport:\n  - to: @@{{provider_b||provider_c}}.environments["env"]\n    id: env_1`),
    ),
  },
  {
    code: "AGENTS1074",
    rule: "two moves to one address",
    ...pair(
      cfg(
        C,
        `${author}\nmoved:\n  - from: ${W}\n    to: ${AUTHOR}\n  - from: provider_c.agents["scribe"]\n    to: @@{{${AUTHOR}||${W}}}`,
      ),
    ),
  },
  {
    code: "AGENTS1074",
    rule: "one address both moved and removed",
    ...pair(
      cfg(
        C,
        `${author}\nmoved:\n  - from: ${W}\n    to: ${AUTHOR}\nremoved:\n  - from: @@provider_c.agents["{{writer||old}}"]\n    destroy: false`,
      ),
    ),
  },
  {
    code: "AGENTS1074",
    rule: "one remote id imported twice",
    ...pair(
      cfg(
        C,
        `agents:\n${agent("author")}\n${agent("editor")}\nimport:\n  - to: ${AUTHOR}\n    id: agent_1\n  - to: provider_c.agents["editor"]\n    id: @@agent_{{1||2}}`,
      ),
    ),
  },
  {
    code: "AGENTS1074",
    rule: "moves that loop",
    ...pair(
      cfg(
        C,
        `${author}\nmoved:\n  - from: ${W}\n    to: {{provider_c.agents["scribe"]||${AUTHOR}}}\n  - from: provider_c.agents["scribe"]\n    to: @@${W}\n  - from: provider_c.agents["x"]\n    to: {{${AUTHOR}||provider_c.agents["scribe"]}}`,
      ),
    ),
  },
  {
    code: "AGENTS1075",
    rule: "an import into an external reference",
    ...pair(
      cfg(
        C,
        `environments:\n  env:\n    {{environment_id: env_9||description: mine}}\n    config:\n      type: cloud\nimport:\n  - to: @@provider_c.environments["env"]\n    id: env_1`,
      ),
    ),
  },
  {
    code: "AGENTS1003",
    rule: "a removed entry says whether to destroy",
    ...pair(
      cfg(
        B,
        `agents:\n${agent("a")}\nremoved:\n  - @@from: provider_b.agents["old"]{{||\n    destroy: false}}`,
      ),
    ),
  },
];
