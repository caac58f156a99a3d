import { type FSWatcher, watch } from "node:fs";
import { basename, dirname } from "node:path";

/** Options of {@link watchConfigFile}. */
interface WatchConfigFileOptions {
  /** Quiet time after the last change before `onChange` is called, ms. Default 250. */
  debounceMs?: number;
  /** The watch itself failed (its folder was removed, say); the watch has stopped. */
  onError?: (error: unknown) => void;
}

/**
 * Calls `onChange` once a burst of changes to the file at `path` is over. The folder is watched
 * rather than the file: an editor that saves by writing a new file and renaming it over the old
 * one replaces the file a watch would follow, and the folder sees every such rename. Events for
 * other files of the folder are ignored. The watch keeps no process alive; `close()` stops it.
 */
export function watchConfigFile(
  path: string,
  onChange: () => void,
  options: WatchConfigFileOptions = {},
): { close(): void } {
  const name = basename(path);
  const debounceMs = options.debounceMs ?? 250;
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined = watch(
    dirname(path),
    { persistent: false },
    (_event, filename) => {
      // Some platforms do not say which file changed: then it may have been this one.
      if (filename !== null && filename.toString() !== name) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = undefined;
        onChange();
      }, debounceMs);
      timer.unref();
    },
  );
  watcher.on("error", (error) => {
    close();
    options.onError?.(error);
  });
  function close(): void {
    if (timer) clearTimeout(timer);
    timer = undefined;
    watcher?.close();
    watcher = undefined;
  }
  return { close };
}
