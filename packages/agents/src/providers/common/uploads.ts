// Local files a deployment or Template uploads on the user's behalf are tracked in the
// resource's state (`extra.uploads`): re-uploaded only when their content changes, and deleted
// when replaced or when the resource goes, so no orphan files pile up on the provider.
import type { HttpClient } from "../http.js";
import type { HandlerContext, PriorState } from "../types.js";
import { removeTolerant } from "./handler-kit.js";
import { readLocalFile, sha256 } from "./local-files.js";

type UploadLedger = Record<string, { id: string; sha256: string }>;

export function priorUploads(prior: PriorState | undefined): UploadLedger {
  const uploads = prior?.extra?.uploads;
  return uploads && typeof uploads === "object" ? (uploads as UploadLedger) : {};
}

export class Uploads {
  readonly ledger: UploadLedger = {};
  constructor(
    private readonly ctx: HandlerContext,
    private readonly before: UploadLedger,
    private readonly upload: (source: string) => Promise<string>,
  ) {}

  /** The remote file id for a local source: reused when the bytes are unchanged. */
  async idFor(source: string): Promise<string> {
    const recorded = this.ledger[source];
    if (recorded) return recorded.id;
    const local = await readLocalFile(this.ctx.configDir, source);
    const known = this.before[source];
    const id = known && known.sha256 === local.sha256 ? known.id : await this.upload(source);
    this.ledger[source] = { id, sha256: local.sha256 };
    return id;
  }

  /**
   * Deletes what this attempt uploaded that no earlier save recorded: call when the save failed,
   * so a failed create or update never leaves an orphan upload behind. Best effort: the save's
   * own error is what the user needs to see.
   */
  async discardNew(http: HttpClient): Promise<void> {
    const known = new Set(Object.values(this.before).map((u) => u.id));
    for (const u of Object.values(this.ledger)) {
      if (known.has(u.id)) continue;
      await removeTolerant(http, "DELETE", `/files/${u.id}`, this.ctx.signal).catch(() => {});
    }
  }

  /** Deletes earlier uploads that the new version no longer uses (call after the save). */
  async pruneReplaced(http: HttpClient): Promise<void> {
    const keep = new Set(Object.values(this.ledger).map((u) => u.id));
    for (const u of Object.values(this.before)) {
      if (!keep.has(u.id)) await removeTolerant(http, "DELETE", `/files/${u.id}`, this.ctx.signal);
    }
  }
}

export async function deleteUploads(
  ctx: HandlerContext,
  http: HttpClient,
  ledger: UploadLedger,
): Promise<void> {
  for (const u of Object.values(ledger)) await removeTolerant(http, "DELETE", `/files/${u.id}`, ctx.signal);
}

/** Content digests of local sources for `desired`, so an edited file shows as a change. */
export async function sourceDigests(configDir: string, sources: string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const source of sources) out[source] = sha256((await readLocalFile(configDir, source)).bytes);
  return out;
}
