// The prose of docs/configuration.md#lifecycle: the `lifecycle:` block and `--replace`, each rule
// beside Terraform's. Part of the generated reference (docs.ts), kept apart from the tables.
export const LIFECYCLE_SECTION = `## Lifecycle

Every resource kind takes a \`lifecycle:\` block. It changes how plan and apply treat that one
resource; it is never sent to a provider.

\`\`\`yaml
agents:
  writer:
    model: claude-sonnet-4-5
    instructions: ./writer.md
    lifecycle:
      prevent_destroy: true          # plan, apply and destroy refuse to delete or replace it
      ignore_changes: [description, metadata.team]   # or: ignore_changes: all
      create_before_destroy: true    # a replacement makes the new agent first
\`\`\`

| Rule | What agents does | Terraform's rule | Where they differ |
|---|---|---|---|
| \`prevent_destroy: true\` | Any plan that would delete or replace the resource stops with an error naming the rule, each such address as plans print it (\`provider_c.agents["writer"]\`), why the plan would delete it and how to go ahead; nothing is changed. \`agents plan\`, \`agents apply\` (a saved plan too, checked again before it runs) and \`agents destroy\` refuse alike; so does \`--replace\`. | \`lifecycle { prevent_destroy = true }\`: plan fails when the instance would be destroyed. | Terraform forgets the rule with the block, so removing a resource from the file destroys it. agents records the rule in state at every apply: a resource whose declaration was removed is still refused until \`prevent_destroy: false\` is applied (put the declaration back to do so), or it is released with \`agents state rm\` or a \`removed:\` entry with \`destroy: false\`, which leave the remote object in place. |
| \`ignore_changes: [paths]\` | Edits in the file and changes made outside agents (drift) at those fields plan nothing and are not shown. When another field is updated, the ignored fields are sent as the remote holds them at that moment (read just before the update), so a change made on the console survives. A create (also the re-create of an object deleted outside agents, or a replacement) uses the declared values. | \`ignore_changes = [attr, …]\` | Paths are written as in agents.yaml, dot-separated, with \`*\` for any list item or map key (\`credentials.*.secret_name\`, \`metadata.team\`); a path the kind does not have is an error (AGENTS1800) with file:line:col and a "did you mean". A secret field cannot be read back from any provider, so an update sends its declared value. \`files\` and \`skills\` are compared by what they upload (a digest of \`source\`), so they take only \`all\` (AGENTS1803). |
| \`ignore_changes: all\` | No field change is ever planned for the resource; it is still created when missing, deleted when its declaration goes, and replaced on \`--replace\`. An update agents must still make (a referenced resource got a new id, an ownership label is re-stamped after \`agents state mv\`) sends the declaration. | \`ignore_changes = all\` | — |
| \`create_before_destroy: true\` | A replacement (shown \`+/-\` in a plan, where \`-/+\` deletes first) creates the new object, records it, re-points the resources that reference it (their updates run next), and only then deletes the old object. The create is journaled with the id it replaces: a run cut anywhere between leaves a state the next \`apply\` converges from, adopting the new object if its create answer was lost and removing the old one, so there is never a second live object nor an orphan. If re-pointing a dependent fails (or the run is cut before it), the old object is kept, since it is still in use, and the next apply updates the dependents first and only then removes it. | \`create_before_destroy = true\` | Allowed only where the provider lets both objects exist at once: a kind whose names the provider keeps unique (provider_a environments, agents, skills and deployments; provider_b environments, agents, skills, identities by \`external_id\`, and channels) is refused by validate (AGENTS1801) with the reason. Some kinds replace new-first without the rule (vaults on every provider, provider_d files and skills); \`create_before_destroy: false\` makes them delete first. |
| \`agents plan --replace ADDRESS\`, \`agents apply --replace ADDRESS\` (repeatable) | Replaces that resource although nothing forces it (a wedged object, a rotated credential), in the order the kind and its \`create_before_destroy\` give; resources that reference it are updated to the new id. The plan shows \`-/+ ADDRESS (id): replace, replacement asked for with --replace\` (\`+/-\` when the new object comes first) and, in \`--json\`, \`"forced": true\` and \`scope.replace\`. An address that is not declared is refused with the nearest address; one that is declared but not yet recorded is created as planned, with a warning; an external reference is refused. | \`terraform plan\` with its replace option (\`terraform taint\` before it) | A saved plan carries its replacements: \`agents apply plan.json\` takes no \`--replace\`. |

Lifecycle on an external reference (\`environment_id\`, \`identity_id\`, \`tunnel_id\`) has no effect,
since agents never creates, updates or deletes such a resource (warning AGENTS1802).

`;
