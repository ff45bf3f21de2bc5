/**
 * JavaScript's `toLowerCase` as a PostgreSQL expression, so that a search folds case on PostgreSQL as SQLite's
 * registered function does. PostgreSQL's own lower() folds ASCII only under `COLLATE "C"`, and under an ICU collation
 * follows the server's ICU, whose Unicode version need not be Node's. This fold is built from this process's own
 * `toLowerCase` instead: each code point that lowers to one other goes through one translate(), each that lowers to
 * more (İ) through a replace(), and the root locale's one contextual rule, a capital sigma ending a word (ς), through a
 * regexp_replace over the Unicode sets ICU decides it by.
 */

interface Fold {
  /** Code points that lower to one other, and what each lowers to, in the same order (translate's arguments). */
  from: string;
  to: string;
  /** Code points that lower to more than one. */
  expansions: [string, string][];
  /** A capital sigma that lowers to ς: after a cased letter and case-ignorables, not before case-ignorables and one. */
  finalSigma: string;
}

const SIGMA = 'Σ';
const CASED = /\p{Cased}/u;
const IGNORABLE = /\p{Case_Ignorable}/u;

/** A code point as a PostgreSQL regular expression escape, valid inside a bracket expression. */
const escape = (cp: number) => (cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`);

/** Code points in ascending order, as a PostgreSQL bracket expression of ranges. */
function bracket(points: number[]): string {
  const ranges: string[] = [];
  for (let i = 0; i < points.length; ) {
    let j = i;
    while (j + 1 < points.length && points[j + 1] === points[j] + 1) j++;
    ranges.push(i === j ? escape(points[i]) : `${escape(points[i])}-${escape(points[j])}`);
    i = j + 1;
  }
  return `[${ranges.join('')}]`;
}

let fold: Fold | undefined;

/** Read once from every code point: what this Node's `toLowerCase` does, and its Cased and Case_Ignorable sets. */
function theFold(): Fold {
  if (fold) return fold;
  let from = '';
  let to = '';
  const expansions: [string, string][] = [];
  const cased: number[] = [];
  const ignorable: number[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    // Lone surrogates cannot reach PostgreSQL, whose text is UTF-8.
    if (cp === 0xd800) cp = 0xe000;
    const c = String.fromCodePoint(cp);
    // ICU skips a character that is both as case-ignorable: it never counts as the cased letter.
    if (IGNORABLE.test(c)) ignorable.push(cp);
    else if (CASED.test(c)) cased.push(cp);
    const lower = c.toLowerCase();
    if (lower === c) continue;
    if ([...lower].length === 1) {
      from += c;
      to += lower;
    } else expansions.push([c, lower]);
  }
  const [c, i] = [bracket(cased), bracket(ignorable)];
  fold = { from, to, expansions, finalSigma: `(?<=${c}${i}*)${SIGMA}(?!${i}*${c})` };
  return fold;
}

/** The parameters jsLowerSql's expressions name (`@js_lower_…`), to add to a statement's. */
export function jsLowerParams(): Record<string, string> {
  const { from, to, expansions, finalSigma } = theFold();
  const params: Record<string, string> = { js_lower_from: from, js_lower_to: to, js_lower_sigma: finalSigma };
  expansions.forEach(([upper, lower], n) => Object.assign(params, { [`js_lower_x${n}`]: upper, [`js_lower_y${n}`]: lower }));
  return params;
}

/**
 * `expr` (text) lower-cased as JavaScript's `toLowerCase` would, with jsLowerParams' parameters; `expr` is evaluated up
 * to twice, so it should be a column. The sigma rule reads the text as given, so it runs first.
 */
export function jsLowerSql(expr: string): string {
  const sigma = `CASE WHEN strpos(${expr}, '${SIGMA}') = 0 THEN ${expr} ELSE regexp_replace(${expr}, @js_lower_sigma, 'ς', 'g') END`;
  const expanded = theFold().expansions.reduce((text, _, n) => `replace(${text}, @js_lower_x${n}, @js_lower_y${n})`, sigma);
  return `translate(${expanded}, @js_lower_from, @js_lower_to)`;
}
