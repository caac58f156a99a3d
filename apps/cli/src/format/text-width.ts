// The SGR colour sequences picocolors writes (ESC [ … m); they take no room on screen.
const ANSI_SGR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

/** `text` without terminal colour sequences. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI_SGR, "");
}

/** Columns `text` takes on a terminal (colour sequences excluded; one column per code point). */
export function visibleWidth(text: string): number {
  let width = 0;
  for (const _ of stripAnsi(text)) width++;
  return width;
}

/** Pads `text` with spaces to `width` visible columns, on the right (`start`) or left (`end`). */
export function padVisible(text: string, width: number, align: "start" | "end" = "start"): string {
  const gap = Math.max(0, width - visibleWidth(text));
  return align === "end" ? " ".repeat(gap) + text : text + " ".repeat(gap);
}
