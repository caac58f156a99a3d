/** Two decimal digits at `start` as a number, or -1 when either is not a digit. */
function twoDigits(value: string, start: number): number {
  const high = value.charCodeAt(start) - 48;
  const low = value.charCodeAt(start + 1) - 48;
  return high >= 0 && high <= 9 && low >= 0 && low <= 9 ? high * 10 + low : -1;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (civil-from-days inverse). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra =
    yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

/**
 * Epoch milliseconds of an ISO-8601 instant, exactly as `Date.parse` reads it. The canonical
 * UTC forms (`YYYY-MM-DDTHH:mm:ss.sssZ`, `YYYY-MM-DDTHH:mm:ssZ`, as `toISOString` writes them)
 * are read with integer arithmetic, because `Date.parse` dominates a pool build's cost; anything
 * else is handed to `Date.parse`. NaN when unparseable.
 */
export function parseIsoInstantMs(value: string): number {
  const length = value.length;
  if (
    (length === 24 || length === 20) &&
    value.charCodeAt(length - 1) === 90 && // Z
    value.charCodeAt(4) === 45 && // -
    value.charCodeAt(7) === 45 &&
    value.charCodeAt(10) === 84 && // T
    value.charCodeAt(13) === 58 && // :
    value.charCodeAt(16) === 58 &&
    (length === 20 || value.charCodeAt(19) === 46) // .
  ) {
    const century = twoDigits(value, 0);
    const yearOfCentury = twoDigits(value, 2);
    const year = century * 100 + yearOfCentury;
    const month = twoDigits(value, 5);
    const day = twoDigits(value, 8);
    const hour = twoDigits(value, 11);
    const minute = twoDigits(value, 14);
    const second = twoDigits(value, 17);
    const msTens = length === 24 ? twoDigits(value, 20) : 0;
    const msUnits = length === 24 ? value.charCodeAt(22) - 48 : 0;
    if (
      century >= 0 &&
      yearOfCentury >= 0 &&
      month >= 1 &&
      month <= 12 &&
      day >= 1 &&
      day <= daysInMonth(year, month) &&
      hour >= 0 &&
      hour <= 23 &&
      minute >= 0 &&
      minute <= 59 &&
      second >= 0 &&
      second <= 59 &&
      msTens >= 0 &&
      msUnits >= 0 &&
      msUnits <= 9
    ) {
      return (
        daysFromCivil(year, month, day) * 86_400_000 +
        hour * 3_600_000 +
        minute * 60_000 +
        second * 1_000 +
        msTens * 10 +
        msUnits
      );
    }
  }
  return Date.parse(value);
}
