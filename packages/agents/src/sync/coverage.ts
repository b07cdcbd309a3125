// Why a kind's declarations are kept as declared on a provider where sync does not list it. One
// line per kind, printed once per (provider, kind) that the file declares; docs/cli.md ("What sync
// covers") carries the same table.
const WHY_KEPT: Record<string, string> = {
  skills: "a skill's content is uploaded from local files, which the provider cannot give back as a path",
  files: "a file is uploaded bytes from a local path, which the provider cannot give back",
  deployments:
    "a deployment names its agent and environment by remote id; not reverse-mapped on this provider yet",
  tunnels: "a tunnel is a reference to an existing BYOC tunnel, never managed remotely",
};

export function keptAsDeclared(provider: string, kind: string, localOnly: boolean): string {
  const why = localOnly
    ? "held by this tool locally; the provider has nothing to read back"
    : (WHY_KEPT[kind] ?? "this provider cannot list them");
  return `${provider} ${kind}: kept as declared, not synced (${why})`;
}
