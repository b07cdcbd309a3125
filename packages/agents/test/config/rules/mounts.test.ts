import { describe, expect, it } from "vitest";
import { normalizeMountPath, repositoryMountPath } from "../../../src/config/rules/mounts.js";
import { PROVIDERS } from "../../../src/providers/catalog.js";

describe("mount paths", () => {
  const b = PROVIDERS.provider_b.capabilities;
  const c = PROVIDERS.provider_c.capabilities;
  const a = PROVIDERS.provider_a.capabilities;
  it.each([
    [b, "inputs/x.txt", "/data/inputs/x.txt"],
    [b, "/data/x", "/data/x"],
    [b, "/data", null],
    [b, "/workspace/x", null],
    [c, "repo", "/workspace/repo"],
    [c, "/workspace/../etc", null],
    [b, "../etc/passwd", null],
    [a, "/mnt/in/x", "/mnt/in/x"],
  ])("%# normalizes %s", (caps, path, expected) => {
    expect(normalizeMountPath(path, caps)).toBe(expected);
  });

  it("derives a repository's default mount from its name", () => {
    expect(repositoryMountPath("https://git.example.com/ops/infra.git", undefined, b)).toBe(
      "/data/workspace/infra",
    );
    expect(repositoryMountPath("https://github.com/example/service/", undefined, c)).toBe(
      "/workspace/service",
    );
    expect(repositoryMountPath("https://github.com/example/service", "src", c)).toBe("/workspace/src");
  });
});
