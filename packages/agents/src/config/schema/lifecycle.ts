// `lifecycle:` on every resource kind: how plan and apply treat one resource's destruction,
// its replacement and its drift (docs/configuration.md#lifecycle, beside Terraform's rules). The
// field paths of `ignore_changes` and where `create_before_destroy` may be asked for are rules
// (rules/lifecycle.ts): they depend on the kind and the provider.
import { z } from "zod";
import { coded, strict } from "../../model/schema-helpers.js";

const IGNORE_CHANGES_SHAPE = () =>
  coded(
    "AGENTS1001",
    "`ignore_changes` is `all` or a list of field paths, e.g. [instructions, metadata.team]",
  );

export const lifecycleSchema = strict({
  prevent_destroy: z
    .boolean()
    .optional()
    .describe(
      "plan, apply and destroy refuse to delete or replace this resource (also once its declaration is removed from the file)",
    ),
  ignore_changes: z
    .union([z.literal("all", { error: IGNORE_CHANGES_SHAPE }), z.array(z.string().min(1))], {
      error: IGNORE_CHANGES_SHAPE,
    })
    .optional()
    .describe(
      "field paths (dot-separated, `*` for any list item or map key) whose drift and edits plan nothing; `all` for every field",
    ),
  create_before_destroy: z
    .boolean()
    .optional()
    .describe(
      "a replacement creates the new object, re-points what references it, then deletes the old one (where the provider allows both at once); false: delete first",
    ),
}).describe("how plan and apply treat this resource's deletion, replacement and drift");
