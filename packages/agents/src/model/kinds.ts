/** The resource kinds of agents.yaml, in the order the file documents them. */
export const KINDS = [
  "environments",
  "tunnels",
  "vaults",
  "memory_stores",
  "skills",
  "files",
  "identities",
  "agents",
  "channels",
  "deployments",
] as const;

export type Kind = (typeof KINDS)[number];

export function isKind(value: string): value is Kind {
  return (KINDS as readonly string[]).includes(value);
}
