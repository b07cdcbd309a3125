// Which project a run acts for. The ownership label `agents.project` defaults to the config
// folder's name, but clones of one project live in folders of different names (two laptops, a CI
// runner's checkout path): a state shared between them records the project at its first write, and
// every run of that state labels and looks up with the recorded name. See docs/state.md "Project".
import type { State } from "../state/types.js";
import { StateError } from "../state/types.js";
import type { LoadedProject } from "./project.js";

export interface ProjectIdentity {
  /** The `agents.project` label this run stamps and looks for. */
  project: string;
  /** One line for stderr when the state's name won over the folder's. */
  notice?: string;
}

/**
 * The state's recorded project wins over a folder-derived name (with a notice); an explicit
 * AGENTS_PROJECT that contradicts it is refused, as any setting that contradicts the state is.
 */
export function resolveIdentity(
  loaded: Pick<LoadedProject, "project" | "projectFrom">,
  state: Pick<State, "project">,
  location: string,
): ProjectIdentity {
  const recorded = state.project;
  if (!recorded || recorded === loaded.project) return { project: loaded.project };
  if (loaded.projectFrom === "AGENTS_PROJECT")
    throw new StateError(
      `AGENTS_PROJECT is "${loaded.project}" but the state it uses (${location}) belongs to project "${recorded}" ` +
        `(its resources carry agents.project "${recorded}"); unset AGENTS_PROJECT or set it to "${recorded}", ` +
        `or give project "${loaded.project}" a state of its own (another state.workspace or state file)`,
    );
  return {
    project: recorded,
    notice: `note: using project "${recorded}" recorded in the state (${location}), not this folder's name "${loaded.project}"`,
  };
}

/** The loaded project acting under `identity`. */
export function asIdentity(loaded: LoadedProject, identity: ProjectIdentity): LoadedProject {
  return identity.project === loaded.project ? loaded : { ...loaded, project: identity.project };
}
