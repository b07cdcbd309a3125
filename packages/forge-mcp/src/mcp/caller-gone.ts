import type { ServerResponse } from "node:http";

/**
 * A call's abort signal, aborted if its caller goes away before the answer: made only when
 * something reads it (a tool that waits on its client), since an AbortController per call is a
 * measurable share of a plain call's CPU time and most calls never look at it.
 */
export class CallerGone {
  private controller: AbortController | undefined;
  private gone = false;
  private readonly onClose = () => {
    this.gone = true;
    this.controller?.abort();
  };

  constructor(private readonly res: ServerResponse) {
    res.once("close", this.onClose);
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.gone) this.controller.abort();
    }
    return this.controller.signal;
  }

  /** The answer is in: the caller going away from now on aborts nothing. */
  answered(): void {
    this.res.off("close", this.onClose);
  }
}
