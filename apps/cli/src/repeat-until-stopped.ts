import type { CliContext } from "./context";
import { CliError } from "./errors";
import { writeErr } from "./output";

/**
 * Calls `tick` every `intervalS` seconds until SIGINT or SIGTERM (the first call at once when
 * `immediately`, else after one interval), for the commands that watch a running gateway
 * (`status --watch`, `log --follow`). A `CliError` from a tick (a gateway that stopped
 * answering) is printed and the next tick still comes; any other error ends the loop.
 */
export async function repeatUntilStopped(
  context: CliContext,
  intervalS: number,
  immediately: boolean,
  tick: () => Promise<void>,
): Promise<void> {
  let stopped = false;
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    wake?.();
  };
  const pause = () =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, intervalS * 1000);
    });
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    if (!immediately) await pause();
    while (!stopped) {
      try {
        await tick();
      } catch (error) {
        if (!CliError.isInstance(error)) throw error;
        writeErr(context, `${context.color.red("error:")} ${error.message}`);
      }
      if (stopped) break;
      await pause();
    }
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}
