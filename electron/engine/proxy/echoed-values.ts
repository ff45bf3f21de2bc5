import { setImmediate as nextTurn } from 'node:timers/promises';
import { formEncode, isStructured, jsonStringContent, toText } from '../expressions/rendered-value';
import type { AnswerMasker } from '../server/route-types';
import { luhnValid } from '../../../shared/checksums';
import { maskCardNumbers } from '../history/card-numbers';
import { REDACTED } from '../vault/token-service';

/**
 * The one masker of what a request detokenized, wherever a record of the call may repeat it: the destination's answer
 * (the Composer's exchange, History's record of it, the HAR), a pre-configured proxy's trace (bodies, headers, the
 * code's log lines) and the headers that left. It finds each value, and each leaf of an object or array, as it was
 * written and as a body carries it (escaped in a JSON string, once or, as an echo nests a body in its own JSON, twice;
 * encoded in a form; in base64), a number also with other separators or none, and any run of four or more of a
 * number's digits that stands alone (a card's last four, printed by themselves). Places that overlap become one, so
 * no part of a value is left. What a place becomes: see EchoedValues' constructor. maskPlaintext adds every other card
 * number (maskCardNumbers); maskedValue is the same rule for a value the caller already holds.
 */

/** A text the request carried: which value it is of, and where in that value (no keys: the value itself). */
interface Plain {
  value: number;
  path: readonly string[];
  text: string;
}

/**
 * How a body may carry a text, the mask going in the same way: as written, escaped in a JSON string (twice), in a
 * form, in base64 (as a value of its own: inside a longer base64 text its letters depend on what stands before it).
 */
const ENCODINGS: readonly ((text: string) => string)[] = [
  (text) => text,
  jsonStringContent,
  (text) => jsonStringContent(jsonStringContent(text)),
  formEncode,
  (text) => Buffer.from(text, 'utf8').toString('base64'),
];

/**
 * A form of a plain text the answer may hold: its text as Latin-1 (bytes, as HTTP reads a header), its digits (a
 * number, found with any separators between them), or a slice of them (a run found by digitRuns, not by `find`).
 */
interface Form {
  plain: Plain;
  encode: (text: string) => string;
  /** What to find, as Latin-1; or, for a number, its digits. */
  find: string;
  kind: 'text' | 'digits' | 'slice';
}

/** A place of the answer that holds a form, and what the form's plain text is. */
interface Place {
  start: number;
  end: number;
  form: Form;
}

/** Separators a number may be written with: `078-05-1120`, `4242 4242`, `12/30`, a form's `+`. */
const SEPARATOR = /[ \-./+]/g;
const DIGITS_WRITTEN = /^\d(?:[ \-./+]?\d)*$/;
/** A number with fewer digits is looked for only as written: its digits alone would turn up at random. */
const FEWEST_DIGITS = 4;
/** Runs of FEWEST_DIGITS or more digits, a single space or dash allowed between two: each may be a slice of a value. */
const DIGIT_RUN = /\d(?:[ -]?\d){3,}/g;
const NOT_DIGIT = /\D/g;
/** A card number as a value holds it: 13 to 19 digits, with single spaces or dashes between groups. */
const CARD_WRITTEN = /^\d(?:[ -]?\d){12,18}$/;
/** What a card's mask shows of it (reveal_last: 4). */
const CARD_SHOWN = 4;
/** How much of a body is searched in one turn of the event loop. */
const SLICE = 64 * 1024;
/** A shorter text is masked only where it stands alone ("123", never the "123" of "a1234"). */
const SHORTEST_INSIDE = 4;
/** A text as its UTF-8 bytes read as Latin-1: itself when it is ASCII (each character one byte). */
const latin1 = (text: string) => (Buffer.byteLength(text) === text.length ? text : Buffer.from(text, 'utf8').toString('latin1'));
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The string and number leaves of a parsed JSON value, each with its keys. */
function leavesOf(value: unknown, path: string[], into: (path: string[], text: string) => void): void {
  if (typeof value === 'string' || typeof value === 'number') into(path, String(value));
  else if (isStructured(value)) for (const [key, child] of Object.entries(value)) leavesOf(child, [...path, key], into);
}

function plainsOf(values: readonly unknown[]): Plain[] {
  const plains: Plain[] = [];
  values.forEach((value, index) => {
    // A flag or a null says nothing: looking for "true" would mask every other one.
    if (typeof value === 'boolean' || value === null || value === undefined) return;
    plains.push({ value: index, path: [], text: toText(value) });
    if (isStructured(value)) leavesOf(value, [], (path, text) => plains.push({ value: index, path, text }));
  });
  return plains.filter((plain) => plain.text !== '');
}

/** What is looked for of a plain text: each encoding of it (ENCODINGS' order) as Latin-1, and its digits when it is a number. */
interface Finds {
  plain: Plain;
  texts: string[];
  digits: string | null;
}

function findsOf(plain: Plain): Finds {
  const digits = plain.text.replace(NOT_DIGIT, '');
  const number = DIGITS_WRITTEN.test(plain.text) && digits.length >= FEWEST_DIGITS;
  return { plain, texts: ENCODINGS.map((encode) => latin1(encode(plain.text))), digits: number ? digits : null };
}

function formsOf(finds: readonly Finds[]): Form[] {
  const forms: Form[] = [];
  const seen = new Set<string>();
  const add = (form: Form) => {
    const key = `${form.kind}${form.find}`;
    if (seen.has(key)) return;
    seen.add(key);
    forms.push(form);
  };
  for (const { plain, texts, digits } of finds) {
    texts.forEach((find, i) => add({ plain, encode: ENCODINGS[i], find, kind: 'text' }));
    if (digits !== null) add({ plain, encode: ENCODINGS[0], find: digits, kind: 'digits' });
  }
  // Longest first: where two start at one place, the whole value wins over a part of it.
  return forms.sort((a, b) => b.find.length - a.find.length);
}

/** Where a form stands in `text`. */
function* placesOf(text: string, form: Form, stripped: () => string): Generator<Place> {
  const { find } = form;
  if (form.kind === 'digits') {
    if (!stripped().includes(find)) return;
    for (const match of text.matchAll(new RegExp([...find].join('[ \\-./+]?'), 'g'))) yield { start: match.index, end: match.index + match[0].length, form };
    return;
  }
  if (find.length < SHORTEST_INSIDE) {
    if (!text.includes(find)) return;
    for (const match of text.matchAll(new RegExp(`(?<![A-Za-z0-9])${escaped(find)}(?![A-Za-z0-9])`, 'g'))) yield { start: match.index, end: match.index + find.length, form };
    return;
  }
  for (let at = text.indexOf(find); at !== -1; at = text.indexOf(find, at + find.length)) yield { start: at, end: at + find.length, form };
}

/**
 * The runs of digits of `text` (maximal: a digit neither before nor after) that may be a slice of a number's digits,
 * with their digits. A run longer than every number is none: a body of digits costs one pass.
 */
function* digitRuns(text: string, longest: number): Generator<{ start: number; end: number; digits: string }> {
  for (const match of text.matchAll(DIGIT_RUN)) {
    const start = match.index;
    const end = start + match[0].length;
    if (isDigit(text.charCodeAt(start - 1)) || isDigit(text.charCodeAt(end))) continue;
    const digits = match[0].replace(NOT_DIGIT, '');
    if (digits.length <= longest) yield { start, end, digits };
  }
}

/** The runs of digits of `text` that are a slice of a number's digits, each as a place of that number's slice form. */
function* slicePlaces(text: string, slices: readonly Form[], longest: number): Generator<Place> {
  for (const { start, end, digits } of digitRuns(text, longest)) {
    const form = slices.find((slice) => slice.find.includes(digits));
    if (form) yield { start, end, form };
  }
}

const isDigit = (code: number) => code >= 48 && code <= 57;

/** `text` with each digit an X but, for a card number, its last four: the shape of what was there, never its digits. */
function digitsHidden(text: string, card: boolean): string {
  let digits = 0;
  for (let i = 0; i < text.length; i++) if (isDigit(text.charCodeAt(i))) digits++;
  const hidden = card ? digits - CARD_SHOWN : digits;
  // The common case, a number without separators, in one piece.
  if (digits === text.length) return 'X'.repeat(hidden) + text.slice(hidden);
  let out = '';
  for (let i = 0, seen = 0; i < text.length; i++) out += isDigit(text.charCodeAt(i)) && seen++ < hidden ? 'X' : text[i];
  return out;
}

const isCardNumber = (text: string) => CARD_WRITTEN.test(text) && luhnValid(text.replace(NOT_DIGIT, ''));

/**
 * A value with what a record may show of it: a card number (13 to 19 digits, Luhn-valid) as a card's mask shows it
 * (X but the last four, separators kept), each leaf of an object or array likewise, a flag or null as it is, and
 * every other text or number `[redacted]`. Needs no token and no second evaluation: history writes its view of an
 * outbound body with it, from what the render produced.
 */
export function maskedValue(value: unknown): unknown {
  if (typeof value === 'boolean' || value === null || value === undefined) return value;
  if (Array.isArray(value)) return value.map(maskedValue);
  if (isStructured(value)) return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, maskedValue(child)]));
  const text = toText(value);
  if (text === '') return text;
  return isCardNumber(text) ? digitsHidden(text, true) : REDACTED;
}

/** What a place of `text` becomes without the tokens' masks: see maskedValue; a slice of a number is all X. */
function placeMasked(text: string, { start, end, form }: Place): string {
  if (form.kind !== 'text') return digitsHidden(text.slice(start, end), form.kind === 'digits' && isCardNumber(form.plain.text));
  return latin1(form.encode(toText(maskedValue(form.plain.text))));
}

/** The text at `path` of a mask, or `[redacted]` where the mask has nothing there (or its expression failed). */
function maskAt(mask: unknown, path: readonly string[]): string {
  let at = mask;
  for (const key of path) at = isStructured(at) ? (at as Record<string, unknown>)[key] : undefined;
  if (at === undefined || at === null || (path.length > 0 && isStructured(at))) return REDACTED;
  return toText(at) || REDACTED;
}

/**
 * What a call's values are looked for as, made once for every masker of them (the answer's and the record's): what
 * to find, and the forms, sorted for the search, made from it only once a text may hold one (mayHold).
 */
interface Search {
  finds: Finds[];
  numbers: string[];
  forms?: { forms: Form[]; slices: Form[] };
}

const searches = new WeakMap<readonly unknown[], Search>();

function searchFor(values: readonly unknown[]): Search {
  let search = searches.get(values);
  if (!search) {
    const finds = plainsOf(values).map(findsOf);
    search = { finds, numbers: finds.flatMap(({ digits }) => (digits === null ? [] : [digits])) };
    searches.set(values, search);
  }
  return search;
}

function formsFor(search: Search): { forms: Form[]; slices: Form[] } {
  if (!search.forms) {
    const forms = formsOf(search.finds);
    search.forms = { forms, slices: forms.filter((form) => form.kind === 'digits').map((form): Form => ({ ...form, kind: 'slice' })) };
  }
  return search.forms;
}

/**
 * Whether `text` may hold a form of a value: false only where placesBySlice finds no place (each form it finds is
 * found only where the text includes what it looks for), for a fraction of what making the forms costs.
 */
function mayHold(text: string, { finds, numbers }: Search): boolean {
  let stripped: string | undefined;
  for (const { texts, digits } of finds) {
    if (texts.some((find) => text.includes(find))) return true;
    if (digits !== null && (stripped ??= text.replace(SEPARATOR, '')).includes(digits)) return true;
  }
  const longest = Math.max(0, ...numbers.map((digits) => digits.length));
  for (const run of digitRuns(text, longest)) if (numbers.some((digits) => digits.includes(run.digits))) return true;
  return false;
}

export class EchoedValues implements AnswerMasker {
  private masks: readonly unknown[] | undefined;

  /**
   * @param values what each expression of the request evaluated to, in plaintext
   * @param masksOf what each writes from its token's mask, in the same order (undefined where it fails): asked only
   * once an answer is found to repeat a value, and each place then shows its token's mask (a text the mask shows as it
   * is, an expiry month, is no secret and stays). Without it, a place becomes what maskedValue makes of it, keeping the
   * shape of a number it found with other separators; a slice of a number is all X either way.
   */
  constructor(
    private readonly values: readonly unknown[],
    private readonly masksOf?: () => readonly unknown[],
  ) {}

  /**
   * Latin-1 text (a header value as HTTP reads it) with every value it repeats masked, and how many places. Most
   * texts repeat none: the forms are made only for one that may (mayHold).
   */
  maskLatin1(text: string): { text: string; masked: number } {
    if (!mayHold(text, searchFor(this.values))) return { text, masked: 0 };
    return this.masked(text, [...this.placesBySlice(text)].flat());
  }

  /** A body with every value it repeats masked, and how many places: searched a slice per turn, so no client waits on a long one. */
  async maskBytes(bytes: Buffer): Promise<{ bytes: Buffer; masked: number }> {
    const text = bytes.toString('latin1');
    const places: Place[] = [];
    for (const slice of this.placesBySlice(text)) {
      places.push(...slice);
      await nextTurn();
    }
    const { text: shown, masked } = this.masked(text, places);
    return { bytes: masked === 0 ? bytes : Buffer.from(shown, 'latin1'), masked };
  }

  /**
   * The places of `text` that hold a form, SLICE characters at a time: each slice is searched with as much of the
   * text on either side as the longest form may span (a number's digits with a separator between each), and keeps
   * the places that start inside it.
   */
  private *placesBySlice(text: string): Generator<Place[]> {
    const { forms, slices } = formsFor(searchFor(this.values));
    if (forms.length === 0) return;
    const longestDigits = Math.max(0, ...slices.map((slice) => slice.find.length));
    // Longest first (formsOf): twice its length covers its separators, one more the character a lookbehind reads.
    const margin = 2 * forms[0].find.length + 1;
    for (let from = 0; from < text.length; from += SLICE) {
      const start = Math.max(0, from - margin);
      const window = text.slice(start, from + SLICE + margin);
      let stripped: string | undefined;
      const places: Place[] = [];
      const keep = (place: Place) => {
        const at = start + place.start;
        if (at >= from && at < from + SLICE) places.push({ start: at, end: start + place.end, form: place.form });
      };
      for (const form of forms) for (const place of placesOf(window, form, () => (stripped ??= window.replace(SEPARATOR, '')))) keep(place);
      // After the whole values: where a run is both, the value's own mask wins.
      if (longestDigits > 0) for (const place of slicePlaces(window, slices, longestDigits)) keep(place);
      yield places;
    }
  }

  private masked(text: string, places: readonly Place[]): { text: string; masked: number } {
    if (places.length === 0) return { text, masked: 0 };
    const masks = this.masksOf ? (this.masks ??= this.masksOf()) : undefined;
    const tokenMask = (form: Form) => maskAt(masks![form.plain.value], form.plain.path);
    const put = (place: Place) => (masks && place.form.kind !== 'slice' ? latin1(place.form.encode(tokenMask(place.form))) : placeMasked(text, place));
    // A text the token's mask shows as it is (an expiry month) is no secret of the token's.
    const hidden = masks ? places.filter((place) => place.form.kind === 'slice' || tokenMask(place.form) !== place.form.plain.text) : [...places];
    hidden.sort((a, b) => a.start - b.start || b.end - a.end);
    let out = '';
    let masked = 0;
    let done = 0;
    for (let i = 0; i < hidden.length; ) {
      const first = hidden[i];
      let end = first.end;
      for (i++; i < hidden.length && hidden[i].start < end; i++) end = Math.max(end, hidden[i].end);
      // Places that overlap are masked as one: as the first one's mask when it covers them all, else redacted.
      out += text.slice(done, first.start) + (end === first.end ? put(first) : REDACTED);
      done = end;
      masked++;
    }
    return { text: masked === 0 ? text : out + text.slice(done), masked };
  }
}

/**
 * Texts a record of the call keeps (a trace's bodies, headers and log lines; the headers that left), each with every
 * value the call detokenized masked (`echoes`; none when it detokenized nothing), then every card number.
 */
export function maskPlaintext(texts: readonly string[], echoes: EchoedValues | undefined): string[] {
  // One search over them all first: a record that repeats nothing, nearly every one, costs no more.
  const all = texts.join('\n');
  if ((!echoes || echoes.maskLatin1(all).masked === 0) && maskCardNumbers(all).masked === 0) return [...texts];
  return texts.map((text) => maskCardNumbers(echoes ? echoes.maskLatin1(text).text : text).text);
}
