// The credential check plan runs for a provider it would otherwise not read (a fresh state):
// list one agent. Every provider lists agents on its (managed) API, so the same read serves all.
import type { HttpClient } from "../http.js";

export async function probeByListingAgents(http: HttpClient, signal: AbortSignal): Promise<void> {
  await http.request({ method: "GET", path: "/agents", query: { limit: 1 }, signal });
}
