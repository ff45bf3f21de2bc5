import { luhnValid } from '../../../shared/checksums';

/** Where a card number may be written: at least 13 digits, a single space or dash allowed between two of them. */
const DIGIT_RUN = /\d(?:[ -]?\d){12,}/g;
const SHORTEST = 13;
const LONGEST = 19;
/** What a card's mask shows of it (reveal_last: 4). */
const SHOWN = 4;

/** The digit groups of a run, as its separators cut it: where each starts in the run, and its digits. */
function groupsOf(run: string): { at: number; digits: string }[] {
  const groups: { at: number; digits: string }[] = [];
  for (const match of run.matchAll(/\d+/g)) groups.push({ at: match.index, digits: match[0] });
  return groups;
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
    const groups = groupsOf(run);
    let chars: string[] | null = null;
    for (let first = 0; first < groups.length; first++) {
      let digits = '';
      for (let last = first; last < groups.length; last++) {
        digits += groups[last].digits;
        if (digits.length > LONGEST) break;
        if (digits.length < SHORTEST || !luhnValid(digits)) continue;
        masked++;
        chars ??= [...run];
        // Every digit of the stretch but its last four, wherever the separators put them.
        let hide = digits.length - SHOWN;
        for (let at = groups[first].at; hide > 0; at++) {
          if (run[at] >= '0' && run[at] <= '9') {
            chars[at] = 'X';
            hide--;
          }
        }
      }
    }
    return chars ? chars.join('') : run;
  });
  return { text: result, masked };
}
