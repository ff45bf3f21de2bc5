/**
 * Check-digit algorithms of the token types: the vault validates with them, the workbench makes test data with them.
 * Both take the digits as a string and say false for anything else.
 */

const ONLY_DIGITS = /^\d+$/;

/** Luhn (mod 10), the check digit of every payment card number. */
export function luhnValid(digits: string): boolean {
  if (!ONLY_DIGITS.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    // Double every second digit counting from the right, the check digit itself excluded.
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

const ABA_WEIGHTS = [3, 7, 1, 3, 7, 1, 3, 7, 1];

/** ABA routing number: nine digits whose 3-7-1 weighted sum is a multiple of 10. */
export function abaValid(routing: string): boolean {
  if (routing.length !== 9 || !ONLY_DIGITS.test(routing)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (routing.charCodeAt(i) - 48) * ABA_WEIGHTS[i];
  return sum % 10 === 0;
}
