import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { type CancelTable, callKey, endUnanswered } from "./cancels.js";
import type { Caller } from "./catalogue.js";

/**
 * A call's abort signal, aborted if its caller goes away before the answer, or cancels the call
 * (notifications/cancelled on a request of its own, src/mcp/cancels.ts): made only when something
 * reads it (a tool that waits on its client), since an AbortController per call is a measurable
 * share of a plain call's CPU time and most calls never look at it. The call enters the cancel
 * table at the same moment, so a call that never reads its signal costs the table nothing (a
 * cancel of it is ignored, as the specification lets a server ignore one it cannot act on).
 */
export class CallerGone {
  private controller: AbortController | undefined;
  private gone = false;
  private leave: (() => void) | undefined;
  private readonly onClose = () => {
    this.gone = true;
    this.leave?.();
    this.controller?.abort();
  };

  /** `cancels` and the rest: where a cancel of this call (by this caller, with this id) is looked for. */
  constructor(
    private readonly res: ServerResponse,
    private readonly cancels?: CancelTable,
    private readonly caller?: Caller,
    private readonly headers?: IncomingHttpHeaders,
    private readonly id?: string | number,
  ) {
    res.once("close", this.onClose);
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.gone) this.controller.abort();
      else if (this.cancels && this.id !== undefined) {
        const res = this.res;
        // cancelled: the response ends unanswered, and its close aborts the signal
        this.leave = this.cancels.add(callKey(this.caller, this.headers, this.id), () => endUnanswered(res));
      }
    }
    return this.controller.signal;
  }

  /** The answer is in: the caller going away (or cancelling) from now on aborts nothing. */
  answered(): void {
    this.res.off("close", this.onClose);
    this.leave?.();
  }
}
