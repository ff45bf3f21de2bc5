import { luhnValid } from '../../../shared/checksums';

/** Where a card number may be written: at least 13 digits, a single space or dash allowed between two of them. */
const DIGIT_RUN = /\d(?:[ -]?\d){12,}/g;
/**
 * A token id (a UUID) is kept whole, since its digit groups can pass the Luhn check by chance. It is looked for from
 * its first dash, its first group checked after: a pattern that opens with a class of letters would be tried at every
 * letter of a text, and bodies are mostly words.
 */
const UUID_FROM_FIRST_DASH = /-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const UUID_FIRST_GROUP = /^[0-9a-f]{8}$/i;
const FIRST_GROUP_LENGTH = 8;
const UUID_LENGTH = 36;
const SHORTEST = 13;
const LONGEST = 19;
/** What a card's mask shows of it (reveal_last: 4). */
const SHOWN = 4;
/** A digit's share of the Luhn sum when it is doubled. */
const DOUBLED = [0, 2, 4, 6, 8, 1, 3, 5, 7, 9];

const X = 0x58;

/**
 * What one text's runs are worked out in, made once for the text (no run is longer): each digit's place in the run,
 * where each group of digits starts (and, last, where the digits end), and the Luhn sums of every prefix, one for a
 * number whose last digit has an even index (so digits at odd indexes are doubled), one for an odd one: any stretch's
 * sum is then a difference, and a long run costs no more per stretch.
 */
class Scratch {
  readonly places: Int32Array;
  readonly groups: Int32Array;
  readonly endsEven: Int32Array;
  readonly endsOdd: Int32Array;
  constructor(length: number) {
    this.places = new Int32Array(length);
    this.groups = new Int32Array(length + 1);
    this.endsEven = new Int32Array(length + 1);
    this.endsOdd = new Int32Array(length + 1);
  }
}

/**
 * Masks, in `run` (digits, spaces and dashes, as bytes), every card number it holds; answers how many it found. Any
 * stretch of whole groups of 13 to 19 digits that passes the Luhn check is one.
 */
function maskRun(run: Buffer, { places, groups, endsEven, endsOdd }: Scratch): number {
  const length = run.length;
  let k = 0;
  let groupCount = 0;
  for (let i = 0; i < length; i++) {
    const digit = run[i] - 48;
    if (digit < 0 || digit > 9) continue;
    if (k === 0 || places[k - 1] !== i - 1) groups[groupCount++] = k;
    places[k] = i;
    endsEven[k + 1] = endsEven[k] + (k % 2 === 0 ? digit : DOUBLED[digit]);
    endsOdd[k + 1] = endsOdd[k] + (k % 2 === 0 ? DOUBLED[digit] : digit);
    k++;
  }
  groups[groupCount] = k;
  let masked = 0;
  for (let first = 0; first < groupCount; first++) {
    const start = groups[first];
    for (let next = first + 1; next <= groupCount && groups[next] - start <= LONGEST; next++) {
      const end = groups[next];
      if (end - start < SHORTEST) continue;
      const sums = (end - 1) % 2 === 0 ? endsEven : endsOdd;
      if ((sums[end] - sums[start]) % 10 !== 0) continue;
      masked++;
      for (let hide = start; hide < end - SHOWN; hide++) run[places[hide]] = X;
    }
  }
  return masked;
}

/**
 * Masks every Luhn-valid number of 13 to 19 digits in `text`, as a card's mask does: each digit but the last four
 * becomes X, in place, separators kept ("4242 4242 4242 4242" → "XXXX XXXX XXXX 4242"). A number may be cut into
 * groups by spaces or dashes, and other numbers may sit beside it in the same run ("id 77 4242 …"): every stretch of
 * whole groups with 13 to 19 digits is tried. One group longer than 19 digits is no card number, nor a part of one.
 * Answers the text and how many numbers were masked.
 */
export function maskCardNumbers(text: string): { text: string; masked: number } {
  let masked = 0;
  let scratch: Scratch | undefined;
  let result = '';
  let copied = 0;
  let uuid = nextUuid(text, 0);
  // Left to right, as one pattern of a UUID or a run would match: at each place a UUID first, and past what matched.
  for (let at = 0; ; ) {
    DIGIT_RUN.lastIndex = at;
    const found = DIGIT_RUN.exec(text);
    if (!found) break;
    if (uuid !== -1 && uuid < at) uuid = nextUuid(text, at);
    if (uuid !== -1 && uuid <= found.index) {
      at = uuid + UUID_LENGTH;
      continue;
    }
    const run = found[0];
    at = found.index + run.length;
    // The run is ASCII, so each character is one byte.
    const bytes = Buffer.from(run, 'latin1');
    const count = maskRun(bytes, (scratch ??= new Scratch(text.length)));
    if (count === 0) continue;
    masked += count;
    result += text.slice(copied, found.index) + bytes.toString('latin1');
    copied = at;
  }
  return { text: copied === 0 ? text : result + text.slice(copied), masked };
}

/** Where the first token id at or after `from` starts; -1 when none does. */
function nextUuid(text: string, from: number): number {
  UUID_FROM_FIRST_DASH.lastIndex = from + FIRST_GROUP_LENGTH;
  for (let dash = UUID_FROM_FIRST_DASH.exec(text); dash; dash = UUID_FROM_FIRST_DASH.exec(text)) {
    const start = dash.index - FIRST_GROUP_LENGTH;
    if (UUID_FIRST_GROUP.test(text.slice(start, dash.index))) return start;
    UUID_FROM_FIRST_DASH.lastIndex = dash.index + 1;
  }
  return -1;
}

/** Bare runs of 13–19 digits (no digit either side) that pass the Luhn check: what the `mask` transform's `chase_stratus_pan` replaces. */
const BARE_RUN = /(?<!\d)\d{13,19}(?!\d)/g;

export function* luhnRuns(text: string): Generator<{ start: number; end: number }> {
  for (const match of text.matchAll(BARE_RUN)) {
    if (luhnValid(match[0])) yield { start: match.index, end: match.index + match[0].length };
  }
}
