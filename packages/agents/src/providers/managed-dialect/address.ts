// Logical names come from the engine's resource address (`provider_c.agents["writer"]`), so a
// handler can name remote objects after the declaration without the core passing extra data.

/** The logical name inside an address such as `provider_c.agents["writer"]`. */
export function logicalNameOf(address: string): string {
  const bracket = /\["((?:[^"\\]|\\.)*)"\]$/.exec(address);
  if (bracket?.[1] !== undefined) {
    try {
      return JSON.parse(`"${bracket[1]}"`) as string;
    } catch {
      return bracket[1];
    }
  }
  const dot = address.lastIndexOf(".");
  return dot >= 0 ? address.slice(dot + 1) : address;
}
