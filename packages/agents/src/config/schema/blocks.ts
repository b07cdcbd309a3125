// The top-level `moved:`, `import:` and `removed:` lists: state changes reviewed in a plan and kept
// in git, as Terraform's blocks of the same names. Their addresses are checked by rules/blocks.ts.
import { z } from "zod";
import { strict } from "../../model/schema-helpers.js";

const address = (role: string) =>
  z
    .string()
    .min(1)
    .describe(`${role}, written as plans print it: provider.kind["name"], e.g. provider_c.agents["writer"]`);

export const movedSchema = strict({
  from: address("the address state records the resource under now"),
  to: address("the declared address it moves to"),
}).describe("a renamed key: the state entry moves, the remote object stays (no destroy, no create)");

export const importSchema = strict({
  to: address("the declared address that takes the remote object"),
  id: z.string().min(1).describe("the remote object's id on the address's provider"),
}).describe("an existing remote object adopted into a declaration: the plan reads it and shows `import`");

export const removedSchema = strict({
  from: address("the address state records, no longer declared"),
  destroy: z
    .boolean()
    .describe(
      "false: forget it (state drops it, the remote object stays); true: delete it, as for any removed declaration. Required: a forgotten key never destroys by default",
    ),
}).describe("a declaration taken out of the file: forgotten (destroy: false) or deleted (destroy: true)");

export const blockListsShape = {
  moved: z
    .array(movedSchema)
    .optional()
    .describe("renames to record in state at the next apply (as `agents state mv`, reviewed in the plan)"),
  import: z
    .array(importSchema)
    .optional()
    .describe("remote objects to adopt at the next apply (as `agents import`, reviewed in the plan)"),
  removed: z
    .array(removedSchema)
    .optional()
    .describe(
      "state entries to forget (or delete) at the next apply, for declarations taken out of the file",
    ),
};

export type MovedDecl = z.output<typeof movedSchema>;
export type ImportDecl = z.output<typeof importSchema>;
export type RemovedDecl = z.output<typeof removedSchema>;
