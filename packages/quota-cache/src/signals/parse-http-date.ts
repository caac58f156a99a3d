const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

// IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
const IMF_FIXDATE = /^[a-z]{3}, (\d{2}) ([a-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) gmt$/;
// Obsolete RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
const RFC_850 = /^[a-z]+, (\d{2})-([a-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) gmt$/;
// Obsolete asctime: Sun Nov  6 08:49:37 1994
const ASCTIME = /^[a-z]{3} ([a-z]{3}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

function toEpochMs(
  year: number,
  monthName: string,
  day: number,
  hour: number,
  minute: number,
  second: number,
): number | null {
  const month = MONTHS.indexOf(monthName);
  if (month < 0 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return null;
  const ms = Date.UTC(year, month, day, hour, minute, Math.min(second, 59));
  return new Date(ms).getUTCDate() === day ? ms : null;
}

/**
 * Parses an HTTP-date in the three forms RFC 9110 §5.6.7 requires recipients to accept
 * (IMF-fixdate, RFC 850, asctime), case-insensitively. A two-digit RFC 850 year below 70 is
 * 20xx. Anything else gives null: unlike `Date.parse`, this never guesses at free text.
 *
 * @returns epoch milliseconds, or null
 */
export function parseHttpDate(value: string): number | null {
  const input = value.trim().toLowerCase().replace(/\s+/g, " ");
  let m = IMF_FIXDATE.exec(input);
  if (m)
    return toEpochMs(Number(m[3]), m[2]!, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  m = RFC_850.exec(input);
  if (m) {
    const yy = Number(m[3]);
    const year = yy < 70 ? 2000 + yy : 1900 + yy;
    return toEpochMs(year, m[2]!, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  }
  const raw = value.trim().toLowerCase();
  m = ASCTIME.exec(raw);
  if (m)
    return toEpochMs(Number(m[6]), m[1]!, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]));
  return null;
}
