import type { SimDefinition } from "./core/sim.js";

/** Every simulator this package ships, in the order `agents-sim` starts them. */
export const SIM_NAMES = ["provider_a", "provider_b", "provider_c", "provider_d", "forge"] as const;
export type SimName = (typeof SIM_NAMES)[number];

export function isSimName(name: string): name is SimName {
  return (SIM_NAMES as readonly string[]).includes(name);
}

/**
 * Loads a simulator's definition from its folder (`provider-a/`, ..., `forge/`), each of which
 * exports `definition`. Loading on demand keeps start-up of one simulator independent of the others.
 */
export async function loadDefinition(name: SimName): Promise<SimDefinition<any>> {
  const folder = name.replace("_", "-");
  // @vite-ignore: vitest cannot expand this template into a glob (the sources are .ts), so it must
  // leave the specifier to its runtime resolver, which maps .js to .ts like Node's build output does.
  const mod = (await import(/* @vite-ignore */ `./${folder}/index.js`)) as {
    definition?: SimDefinition<any>;
  };
  if (!mod.definition) throw new Error(`simulator ${name} does not export a definition`);
  return mod.definition;
}
