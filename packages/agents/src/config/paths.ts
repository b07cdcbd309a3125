import { readFileSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { Diagnostic } from "./diagnostics.js";
import type { Config } from "./schema/index.js";
import type { Path, YamlSource } from "./source.js";

/**
 * Instructions are a file path when the value is one line without whitespace and either
 * - ends in .md, .markdown or .txt, or starts with ./ or ../ (then the file must exist), or
 * - contains a "/" and names an existing file.
 * Anything else is inline text.
 */
export function instructionsPathCandidate(
  value: string,
  dir: string,
): { path: string; mustExist: boolean } | null {
  if (/\s/.test(value)) return null;
  const path = resolve(dir, value);
  if (/\.(md|markdown|txt)$/i.test(value) || value.startsWith("./") || value.startsWith("../")) {
    return { path, mustExist: true };
  }
  if (value.includes("/") && isFile(path)) return { path, mustExist: false };
  return null;
}

export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolve every local path of the config against the config's folder, in place: instructions
 * files are replaced by their text; skill and file sources become absolute paths; the paths a
 * plan shows (agent files, rubric files, deployment file sources) stay as written. Missing paths
 * are errors.
 */
export function resolvePaths(config: Config, dir: string, source: YamlSource): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const need = (value: string, path: Path, what: "file" | "directory", label: string): string => {
    const absolute = isAbsolute(value) ? value : resolve(dir, value);
    const ok = what === "file" ? isFile(absolute) : isDirectory(absolute);
    if (!ok) {
      const present = exists(absolute);
      diagnostics.push({
        code: present ? "AGENTS1021" : "AGENTS1020",
        severity: "error",
        message: present
          ? `${label} "${value}" is not a ${what}`
          : `${label} "${value}" does not exist (resolved to ${absolute})`,
        ...source.pos(path),
        path: [...path],
        hint: `paths are relative to the folder of ${source.file}`,
      });
    }
    return absolute;
  };

  for (const [name, agent] of Object.entries(config.agents ?? {})) {
    const candidate = instructionsPathCandidate(agent.instructions, dir);
    if (!candidate) continue;
    const path = ["agents", name, "instructions"];
    if (candidate.mustExist && !isFile(candidate.path)) {
      need(agent.instructions, path, "file", "instructions file");
      continue;
    }
    agent.instructions = readFileSync(candidate.path, "utf8");
  }
  for (const [name, agent] of Object.entries(config.agents ?? {})) {
    // The string form (a file a Forward Template inherits) stays relative in the config, so state
    // and plans read the same on every checkout; only its existence is checked here.
    agent.files?.forEach((file, index) => {
      if (typeof file === "string") need(file, ["agents", name, "files", index], "file", "agent file");
    });
  }
  for (const [name, skill] of Object.entries(config.skills ?? {})) {
    skill.source = need(skill.source, ["skills", name, "source"], "directory", "skill source");
  }
  for (const [name, file] of Object.entries(config.files ?? {})) {
    file.source = need(file.source, ["files", name, "source"], "file", "file source");
  }
  for (const [name, deployment] of Object.entries(config.deployments ?? {})) {
    deployment.initial_events?.forEach((event, index) => {
      // Kept as written (relative to agents.yaml), like an agent's files: plans show the path the
      // file names, and state reads the same on every checkout. Handlers read it from configDir.
      if (event.type === "user.define_outcome" && event.rubric_file !== undefined) {
        const path = ["deployments", name, "initial_events", index, "rubric_file"];
        need(event.rubric_file, path, "file", "rubric file");
      }
    });
    deployment.resources?.forEach((resource, index) => {
      if (resource.type === "file" && resource.source !== undefined) {
        const path = ["deployments", name, "resources", index, "source"];
        need(resource.source, path, "file", "resource source");
      }
    });
  }
  return diagnostics;
}
