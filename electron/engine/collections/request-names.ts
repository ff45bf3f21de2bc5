import { ApiProblem } from '../server/problem';

/** One request a file, named after it: `<folder>/<collection>/<name>.request.json`. */
export const SUFFIX = '.request.json';

/**
 * File systems bound a name's bytes, not its characters: 255 bytes of UTF-8 on Linux and macOS (NTFS counts 255
 * UTF-16 units, which no name within these bytes exceeds). A request's name leaves room for the suffix; a
 * collection's is held to the same, so a request's name may be any collection's.
 */
const MAX_NAME_BYTES = 255 - SUFFIX.length;
const FORBIDDEN = /[/\\:*?"<>|]/;
/** C0 and C1 controls and DEL: no file name should hold them (tested apart: the linter refuses them in a pattern). */
const isControl = (code: number) => code < 0x20 || (code >= 0x7f && code <= 0x9f);
/**
 * The bidirectional controls: they make a name display as another (`invoice\u202Efdp.exe` shows as
 * `invoiceexe.pdf`), in the app, in a file manager and in a diff under review.
 */
const isBidiControl = (code: number) => code === 0x61c || code === 0x200e || code === 0x200f || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
/**
 * The device names Windows reserves in every folder, whatever follows them after spaces and a dot (`CON .json` is
 * CON): a repository holding one cannot be checked out there. Superscript digits count as digits for COM and LPT.
 */
const RESERVED = /^(con|prn|aux|nul|conin\$|conout\$|(com|lpt)[0-9¹²³]) *(\..*)?$/i;

/**
 * Refuses, with a 400 saying why, a collection's or a request's name that is not a safe file name everywhere the
 * folder may go (git, Linux, macOS, Windows). The message never repeats the name: it may hold what should not be shown.
 */
export function checkName(what: 'A collection' | 'A request', name: string): void {
  const why = problemOf(name);
  if (why) throw new ApiProblem(400, `${what} name ${why}`);
}

function problemOf(name: string): string | null {
  const bytes = Buffer.byteLength(name);
  if (bytes === 0) return 'cannot be empty';
  if (bytes > MAX_NAME_BYTES) return `is ${bytes} bytes long in UTF-8, over the ${MAX_NAME_BYTES} a file name may take: shorten it`;
  if (FORBIDDEN.test(name)) return 'cannot hold / \\ : * ? " < > |: use letters, digits, spaces and - _ ( )';
  if (name.startsWith('.')) return 'cannot start with a dot (it would be a hidden file)';
  if (name.endsWith('.') || name.endsWith(' ')) return 'cannot end with a dot or a space (Windows drops them)';
  // Half of a surrogate pair is not text: the file would be named with U+FFFD instead, as another name would.
  if (/\p{Cs}/u.test(name)) return 'is not valid text (it holds half of a character)';
  const codes = [...name].map((char) => char.codePointAt(0)!);
  if (codes.some(isControl)) return 'cannot hold control characters';
  if (codes.some(isBidiControl)) return 'cannot hold characters that change the direction of text: they make a name read as another';
  if (RESERVED.test(name)) return 'is a device name on Windows (CON, PRN, AUX, NUL, COM1, LPT1 and the like), which no file there can have';
  return null;
}
