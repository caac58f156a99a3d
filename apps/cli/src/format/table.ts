import type { Colors } from "../context";
import { padVisible, visibleWidth } from "./text-width";

/** One column of a {@link renderTable} table. */
export interface TableColumn {
  /** Header text. */
  header: string;
  /** `end` right-aligns (numbers, money); default `start`. */
  align?: "start" | "end";
}

/**
 * Renders rows as an aligned plain-text table: a header line, a rule, one line per row, two
 * spaces between columns, no trailing spaces. Cells may carry colour; widths ignore it.
 * The header is bold when `color` formats.
 *
 * @returns the table text, ending with a newline (empty string when there are no columns)
 */
export function renderTable(
  columns: readonly TableColumn[],
  rows: readonly (readonly string[])[],
  color?: Colors,
): string {
  if (columns.length === 0) return "";
  const widths = columns.map((column, index) =>
    Math.max(visibleWidth(column.header), ...rows.map((row) => visibleWidth(row[index] ?? ""))),
  );
  const line = (cells: readonly string[]) =>
    columns
      .map((column, index) => padVisible(cells[index] ?? "", widths[index]!, column.align))
      .join("  ")
      .trimEnd();
  const bold = color?.bold ?? ((text: string) => text);
  const header = line(columns.map((column) => bold(column.header)));
  const rule = widths.map((width) => "─".repeat(width)).join("  ");
  return `${[header, rule, ...rows.map(line)].join("\n")}\n`;
}
