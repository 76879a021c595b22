/**
 * `weft thread tail`: a thread's events, live, over `subscribe` (so it resumes after drops).
 * Human mode prints one line per event and, on a terminal, a spinner line while a turn runs
 * (step, calls in flight, elapsed seconds); `--json` prints each frame as one JSON line.
 * @module
 */
import yoctoSpinner from "yocto-spinner";
import type { EventFrame, WeftClient, WeftClientError } from "weft/client";
import { frameLine, jsonText, plural, printable } from "./format.ts";

/** Options of {@link tail}. */
export interface TailOptions {
  since: number;
  json: boolean;
  /** Stop after the first `turn_finished` frame (or a turn that waits for a person). */
  untilFinished: boolean;
}

/** Streams until Ctrl-C, or with `untilFinished` until a turn ends. Resolves with the error that ended it, if any. */
export function tail(client: WeftClient, threadId: string, options: TailOptions): Promise<WeftClientError | null> {
  const live = !options.json && process.stderr.isTTY === true;
  const spinner = live ? yoctoSpinner({ stream: process.stderr }) : null;
  let turnStart = 0;
  let step = 0;
  const running = new Set<string>();
  const progress = () => `turn running: step ${step + 1}, ${plural(running.size, "call")} in flight, ${((Date.now() - turnStart) / 1000).toFixed(1)} s`;
  const ticker = live ? setInterval(() => spinner!.isSpinning && (spinner!.text = progress()), 200) : null;
  const print = (line: string) => {
    if (spinner?.isSpinning) spinner.clear();
    process.stdout.write(`${line}\n`);
  };

  let stop: () => void = () => {};
  const sub = client.subscribe(threadId, {
    since: options.since,
    onEvent(frame: EventFrame) {
      const f = frame as { type: string; data: any };
      if (options.json) print(jsonText(frame));
      else {
        const line = frameLine(frame);
        if (line !== null) print(printable(line));
      }
      if (f.type === "turn_started") {
        turnStart = Date.parse((frame as { at: string }).at) || Date.now();
        step = 0;
        running.clear();
        spinner?.start(progress());
      } else if (f.type === "model_step") step = f.data.step;
      else if (f.type === "tool_call_started") running.add(f.data.callId);
      else if (f.type === "tool_call_finished") running.delete(f.data.callId);
      else if (f.type === "turn_finished" || f.type === "turn_waiting") {
        spinner?.stop();
        if (options.untilFinished) stop();
      }
    },
  });
  stop = () => sub.close();
  process.once("SIGINT", stop);
  return sub.closed.finally(() => {
    if (ticker) clearInterval(ticker);
    spinner?.stop();
    process.off("SIGINT", stop);
  });
}
