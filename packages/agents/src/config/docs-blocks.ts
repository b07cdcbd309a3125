// The reference's section on the `moved:`, `import:` and `removed:` lists (docs/configuration.md),
// beside Terraform's blocks of the same names. The field tables under it come from the schema.
export const BLOCKS_TITLE = "## `moved`, `import` and `removed`";

export const BLOCKS_INTRO = `Three top-level lists record changes to the state in the file, so they are reviewed in a plan
and kept in git, as Terraform's \`moved\`, \`import\` and \`removed\` blocks are. Addresses are written
as plans print them, \`provider.kind["name"]\` (a plain YAML scalar needs no quotes around it):

\`\`\`yaml
moved:        # the key writer was renamed to author: keep the remote agent
  - from: provider_c.agents["writer"]
    to: provider_c.agents["author"]
import:       # manage an environment made by hand
  - to: provider_c.environments["env"]
    id: env_01HX...
removed:      # stop managing a vault, leave it on the provider
  - from: provider_c.vaults["legacy"]
    destroy: false
\`\`\`

| List | The plan shows | Apply | Terraform |
|---|---|---|---|
| \`moved\` | \`moved from FROM\` on the new address, never a delete and a create: \`-> … move\` alone, or \`~ … update\` with what the rename changes remotely (a name that follows the key, the ownership label); \`N to move\` in the summary | renames the state entry (as \`agents state mv\`), then runs the action | \`moved\` block |
| \`import\` | \`<- … import\` of the id, with the changes the config then makes (\`~ name: "handmade-env" → "env"\`, this project's ownership labels) | reads the object again, updates it when the plan listed changes, records it (as \`agents import\`) | \`import\` block |
| \`removed\` | \`destroy: false\`: \`. … forget\`; \`destroy: true\`: the delete, its reason naming the entry | \`forget\`: drops the state entry and calls nothing, the remote object stays; \`destroy: true\`: deletes it | \`removed\` block with \`lifecycle { destroy = … }\` |

Rules (\`agents validate\`, at the entry's line and column):

- An address is \`provider.kind["name"]\` with a known provider and kind (AGENTS1070); the shorthands
  \`agents state mv\` accepts are refused here, and the hint gives the full form.
- A move stays within one provider and kind (AGENTS1071). A \`from\` (of \`moved\` or \`removed\`) is not
  declared any more (AGENTS1072). A \`to\` (of \`moved\` or \`import\`) is declared (AGENTS1073), except a
  step of a chain: \`a → b\` and \`b → c\` move an entry recorded at \`a\` or \`b\` to \`c\`, so the
  history of renames can stay in the file, as in Terraform. No two entries claim one \`from\`, one
  \`to\` or one imported id, and moves never loop (AGENTS1074). An external reference
  (\`environment_id\`, \`identity_id\`, a tunnel) is verified, never imported (AGENTS1075).
- \`removed\` needs \`destroy\`, as Terraform's block needs \`lifecycle { destroy = … }\`: the file says
  every time whether the object goes, so that no default deletes one.

What only the state and the remote tell is checked by \`agents plan\`, which then fails naming the
entry: a move whose \`to\` state already records, two recorded entries that would move to one
address, an imported id that does not exist on the provider (or is the id of another kind, or is
archived), an imported id that state already records under another address. Once applied, the
entries are no-ops: a move whose \`from\` state no longer records plans nothing, an import of an
address state records plans as without it (a warning when state holds another id), a \`removed\`
entry for an address state does not hold plans nothing. Remove them when nobody needs the history.
A \`destroy\` honours \`removed: destroy: false\` (the object is forgotten, not deleted).

Renaming a key without a \`moved\` entry plans a delete and a create; when the two carry the same
settings the plan says so and prints the \`moved\` entry to add.
`;
