/** Card numbers in free text: runs of 13–19 digits (no digit either side) that pass the Luhn check. */
import { luhnValid } from '../../../shared/checksums';

const DIGIT_RUN = /(?<!\d)\d{13,19}(?!\d)/g;

export function* luhnRuns(text: string): Generator<{ start: number; end: number }> {
  for (const match of text.matchAll(DIGIT_RUN)) {
    if (luhnValid(match[0])) yield { start: match.index, end: match.index + match[0].length };
  }
}
