export function configurationReference(): string {
  return "# agents.yaml reference\n";
}
