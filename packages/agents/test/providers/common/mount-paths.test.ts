import { describe, expect, it } from "vitest";
import { DeclarationError } from "../../../src/providers/common/errors.js";
import { normalizeMountPath, repositoryMountPath } from "../../../src/providers/common/mount-paths.js";

describe("mount paths (spec: Session resources)", () => {
  it.each([
    ["relative path resolves under the root (/data)", "/data", "in/x.csv", "/data/in/x.csv"],
    ["relative path resolves under the root (/mnt)", "/mnt", "./x.csv", "/mnt/x.csv"],
    ["absolute path under the root passes unchanged", "/data", "/data/x", "/data/x"],
  ])("%s", (_rule, root, path, expected) => {
    expect(normalizeMountPath(root, path)).toBe(expected);
  });
  it.each([
    ["absolute path under another root is rejected, not rewritten", "/data", "/mnt/x"],
    ["the root itself is not a mount path", "/data", "/data/"],
    ["a relative path may not escape the root", "/data", "../etc"],
    ["a prefix that only looks like the root", "/data", "/database/x"],
  ])("%s", (_rule, root, path) => {
    expect(() => normalizeMountPath(root, path)).toThrow(DeclarationError);
  });
  it.each([
    ["https URL with .git", "https://github.com/acme/widgets.git", "/data/workspace/widgets"],
    ["URL with trailing slash", "https://github.com/acme/widgets/", "/data/workspace/widgets"],
    ["scp-style URL", "git@github.com:acme/tools.git", "/data/workspace/tools"],
    [
      "URL without a name (as validate places it)",
      "https://github.com/acme/.git",
      "/data/workspace/repository",
    ],
  ])("repository default mount: %s", (_rule, url, expected) => {
    expect(repositoryMountPath("/data", url)).toBe(expected);
  });
});
