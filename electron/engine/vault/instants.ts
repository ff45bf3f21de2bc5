/**
 * Points in time as clients write them to the hosted service. ISO 8601 everywhere; `expires_at` also takes the US
 * forms the vendor's tokens page shows (`8/26/2030 7:23:57 PM -07:00`, the short date `9/27/2030`). Each form is
 * read field by field, never by Date.parse of the whole text, whose reading of anything but ISO depends on the
 * runtime. A time without a zone is UTC, as the vendor documents; a date alone is its midnight UTC.
 */

export interface Instant {
  /** Epoch milliseconds; finer fractions are cut, as a stored time keeps milliseconds only. */
  ms: number;
  /** Whether only a date was written (a search then means the whole day). */
  dateOnly: boolean;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})?)?$/;
// M/d/yyyy, then optionally h:mm[:ss] [AM|PM] [zone], single spaces between the parts.
const US = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?: (\d{1,2}):(\d{2})(?::(\d{2}))?(?: (AM|PM))?(?: (Z|[+-]\d{2}:\d{2}))?)?$/i;
// The widest offsets in use (and all the vendor's platform, .NET, accepts) are ±14:00.
const MAX_OFFSET_MINUTES = 14 * 60;

/** `Z` or `±hh:mm` as minutes east of UTC; null when out of range. */
function offsetMinutes(zone: string | undefined): number | null {
  if (zone === undefined || zone.toUpperCase() === 'Z') return 0;
  const minutes = Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6));
  if (Number(zone.slice(4, 6)) > 59 || minutes > MAX_OFFSET_MINUTES) return null;
  return zone[0] === '-' ? -minutes : minutes;
}

interface Fields {
  year: number;
  month: number;
  day: number;
  hour?: number;
  minute?: number;
  second?: number;
  /** The digits after the decimal point. */
  fraction?: string;
  zone?: string;
}

/** The instant the fields name, or null when they name none (30 February, 24:00, an offset of 15 hours). */
function instantOf(f: Fields): Instant | null {
  const dateOnly = f.hour === undefined;
  const [hour, minute, second] = [f.hour ?? 0, f.minute ?? 0, f.second ?? 0];
  if (f.month < 1 || f.month > 12 || f.day < 1 || f.day > daysInMonth(f.year, f.month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const offset = offsetMinutes(f.zone);
  if (offset === null) return null;
  const time = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not read years 0–99 as 1900–1999.
  time.setUTCFullYear(f.year, f.month - 1, f.day);
  time.setUTCHours(hour, minute, second, Number((f.fraction ?? '').padEnd(3, '0').slice(0, 3)));
  return { ms: time.getTime() - offset * 60_000, dateOnly };
}

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
}

const numberOrUndefined = (text: string | undefined) => (text === undefined ? undefined : Number(text));

/** An ISO 8601 date (`2030-04-23`) or date-time with optional seconds, fraction and zone; null when it is not one. */
export function parseIsoInstant(text: string): Instant | null {
  const m = ISO.exec(text);
  if (!m) return null;
  const [, year, month, day, hour, minute, second, fraction, zone] = m;
  return instantOf({
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: numberOrUndefined(hour),
    minute: numberOrUndefined(minute),
    second: numberOrUndefined(second),
    fraction,
    zone,
  });
}

/** `M/d/yyyy`, optionally with `h:mm[:ss]`, `AM`/`PM` (then hours 1–12) and a zone; null when it is not one. */
function parseUsInstant(text: string): Instant | null {
  const m = US.exec(text);
  if (!m) return null;
  const [, month, day, year, hourText, minute, second, meridiem, zone] = m;
  let hour = numberOrUndefined(hourText);
  if (hour !== undefined && meridiem !== undefined) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (meridiem.toUpperCase() === 'PM' ? 12 : 0);
  }
  return instantOf({
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour,
    minute: numberOrUndefined(minute),
    second: numberOrUndefined(second),
    zone,
  });
}

/** What a token's `expires_at` may be written as: ISO 8601 or the documented US forms. */
export const EXPIRY_FORMATS = 'an ISO 8601 date-time (2030-04-23T17:24:28-04:00) or date, or M/d/yyyy h:mm:ss AM/PM with an offset (8/26/2030 7:23:57 PM -07:00) or M/d/yyyy alone';

/** A token's `expires_at` as the instant it names, or null when it is in none of the EXPIRY_FORMATS. */
export function parseExpiryInstant(text: string): Instant | null {
  return parseIsoInstant(text) ?? parseUsInstant(text);
}
