import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DIAGNOSTIC_CODES } from "../../src/config/diagnostics.js";
import { configurationReference } from "../../src/config/docs.js";

const DOC = fileURLToPath(new URL("../../../../docs/configuration.md", import.meta.url));

describe("docs/configuration.md", () => {
  it("is the generated reference (regenerate: node packages/agents/scripts/docs.mjs)", () => {
    expect(readFileSync(DOC, "utf8")).toBe(configurationReference());
  });

  it("documents every field kind and every diagnostic code", () => {
    const text = configurationReference();
    for (const heading of [
      "## `environments.<name>`",
      "## `agents.<name>`",
      "## `deployments.<name>`",
      "## Diagnostic codes",
    ]) {
      expect(text).toContain(heading);
    }
    for (const field of [
      "`tools.permissions`",
      "`default_memory_store.delete_on_destroy`",
      "`schedule.timezone`",
    ]) {
      expect(text).toContain(field);
    }
    for (const code of Object.keys(DIAGNOSTIC_CODES)) expect(text).toContain(`| ${code} |`);
  });
});
