/** Where a card number may be written: at least 13 digits, a single space or dash allowed between two of them. */
const DIGIT_RUN = /\d(?:[ -]?\d){12,}/g;
const SHORTEST = 13;
const LONGEST = 19;
/** What a card's mask shows of it (reveal_last: 4). */
const SHOWN = 4;
/** A digit's share of the Luhn sum when it is doubled. */
const DOUBLED = [0, 2, 4, 6, 8, 1, 3, 5, 7, 9];

/** Hands `mask` the place of each digit to hide in one run; answers how many card numbers it found. */
function maskRun(run: string, mask: (at: number) => void): number {
  // Each digit's place in the run, and where each group of digits starts (and, last, where the digits end).
  const places = new Int32Array(run.length);
  const groups: number[] = [];
  // Luhn sums of every prefix, one for a number whose last digit has an even index (so digits at odd indexes are
  // doubled), one for an odd one: any stretch's sum is then a difference, and a long run costs no more per stretch.
  const endsEven = new Int32Array(run.length + 1);
  const endsOdd = new Int32Array(run.length + 1);
  let k = 0;
  for (let i = 0; i < run.length; i++) {
    const digit = run.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) continue;
    if (k === 0 || places[k - 1] !== i - 1) groups.push(k);
    places[k] = i;
    endsEven[k + 1] = endsEven[k] + (k % 2 === 0 ? digit : DOUBLED[digit]);
    endsOdd[k + 1] = endsOdd[k] + (k % 2 === 0 ? DOUBLED[digit] : digit);
    k++;
  }
  groups.push(k);
  let masked = 0;
  for (let first = 0; first < groups.length - 1; first++) {
    const start = groups[first];
    for (let next = first + 1; next < groups.length && groups[next] - start <= LONGEST; next++) {
      const end = groups[next];
      if (end - start < SHORTEST) continue;
      const sums = (end - 1) % 2 === 0 ? endsEven : endsOdd;
      if ((sums[end] - sums[start]) % 10 !== 0) continue;
      masked++;
      for (let k = start; k < end - SHOWN; k++) mask(places[k]);
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
  const result = text.replace(DIGIT_RUN, (run) => {
    let chars: string[] | null = null;
    masked += maskRun(run, (at) => {
      chars ??= [...run];
      chars[at] = 'X';
    });
    return chars === null ? run : (chars as string[]).join('');
  });
  return { text: result, masked };
}
