/**
 * The filters of the expression language (docs/api.md, Expressions), written once with what the editor tells about
 * each: the engine implements the vault's own filters under exactly these names (its CUSTOM_FILTERS is typed by
 * VaultFilterName), and the Composer offers them all as completions.
 */

export interface FilterArgument {
  name: string;
  /** As it would be written in an expression: `'$.number'`, `4`. */
  example: string;
  optional?: boolean;
}

export interface FilterInfo {
  name: string;
  /** In the order they follow `name:`. */
  args: readonly FilterArgument[];
  description: string;
}

const arg = (name: string, example: string, optional = false): FilterArgument => (optional ? { name, example, optional } : { name, example });

/** The hosted service's filters beyond standard Liquid. */
export const VAULT_FILTERS = [
  { name: 'json', args: [arg('path', "'$.number'")], description: 'One value of the data, chosen by a JSONPath; null when none matches, a 400 when several do.' },
  { name: 'last4', args: [], description: 'The last four characters.' },
  {
    name: 'reveal_last',
    args: [arg('length', '4'), arg('mask_char', "'X'", true)],
    description: 'Masks the letters and digits of all but the last characters: 123-45-6789 becomes XXX-XX-6789.',
  },
  {
    name: 'reveal',
    args: [arg('reveal_first', '6'), arg('reveal_last', '4'), arg('mask_char', "'X'", true), arg('preserve_chars', "'-'", true)],
    description: 'Masks every character but the first and last ones revealed (and the ones preserved).',
  },
  { name: 'card_bin', args: [arg('separator', "' '", true)], description: "The card number's BIN: its first 6 digits, 8 from 16 digits on." },
  {
    name: 'card_exp',
    args: [arg('format', "'MM/YY'")],
    description: 'The expiry of card data as MM, YY and YYYY joined by - / _ . or a space.',
  },
  { name: 'pad_left', args: [arg('length', '10'), arg('pad_char', "'0'")], description: 'Pads the text on the left to a length.' },
  { name: 'pad_right', args: [arg('length', '10'), arg('pad_char', "' '")], description: 'Pads the text on the right to a length.' },
  { name: 'to_number', args: [], description: 'Text as a number (a 400 when it is none), written as a JSON number.' },
  { name: 'to_boolean', args: [], description: 'true or false (or a number) as a JSON boolean.' },
  { name: 'to_string', args: [], description: 'Numbers and booleans as text, written as a JSON string.' },
  { name: 'to_base64', args: [], description: 'The text (or hmac bytes) in base64.' },
  { name: 'to_base16', args: [], description: 'The text (or hmac bytes) in hexadecimal.' },
  {
    name: 'hmac',
    args: [arg('algorithm', "'sha-256'"), arg('key', "'secret'")],
    description: 'An HMAC of the value (sha-1, sha-256 or sha-512), as bytes: follow it with to_base64 or to_base16.',
  },
  { name: 'stringify', args: [], description: 'Objects and arrays as JSON text; text as it is.' },
  { name: 'json_stringify', args: [], description: 'The value as a JSON literal, quotes and all; it must be the last filter.' },
] as const satisfies readonly FilterInfo[];

export type VaultFilterName = (typeof VAULT_FILTERS)[number]['name'];

/** The standard Liquid filters expressions use most; the engine accepts every filter of Liquid. */
export const LIQUID_FILTERS: readonly FilterInfo[] = [
  { name: 'append', args: [arg('text', "'…'")], description: 'Adds text at the end.' },
  { name: 'prepend', args: [arg('text', "'…'")], description: 'Adds text at the start.' },
  { name: 'remove', args: [arg('text', "'-'")], description: 'Removes every occurrence of a text.' },
  { name: 'replace', args: [arg('text', "'-'"), arg('by', "''")], description: 'Replaces every occurrence of a text.' },
  { name: 'slice', args: [arg('start', '0'), arg('length', '6', true)], description: 'Part of the text (or array) from a position.' },
  { name: 'split', args: [arg('separator', "' '")], description: 'Splits text into an array.' },
  { name: 'first', args: [], description: 'The first element of an array.' },
  { name: 'last', args: [], description: 'The last element of an array.' },
  { name: 'upcase', args: [], description: 'The text in upper case.' },
  { name: 'downcase', args: [], description: 'The text in lower case.' },
  { name: 'strip', args: [], description: 'The text without leading and trailing spaces.' },
  { name: 'truncate', args: [arg('length', '10'), arg('ellipsis', "''", true)], description: 'The text cut to a length.' },
  { name: 'default', args: [arg('value', "''")], description: 'A value to use when the result is null, false or empty.' },
  { name: 'size', args: [], description: 'The length of a text or array.' },
];

/** Every filter the editor offers, the vault's own first. */
export const EXPRESSION_FILTERS: readonly FilterInfo[] = [...VAULT_FILTERS, ...LIQUID_FILTERS];

/** How a filter is written with its arguments: `reveal_last: 4, 'X'`. */
export function filterSignature(filter: FilterInfo): string {
  return filter.args.length === 0 ? filter.name : `${filter.name}: ${filter.args.map((a) => a.example).join(', ')}`;
}
