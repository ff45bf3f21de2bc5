/** An expression a request can carry for a token, and what it gives. */
export interface TokenExpression {
  label: string;
  expression: string;
}

/** The fields worth reaching into, per type, with the filter that gives each. */
const FIELDS: Record<string, [string, string][]> = {
  card: [
    ['Card number', "json: '$.number'"],
    ['Expiry as MM/YY', "card_exp: 'MM/YY'"],
    ['CVC', "json: '$.cvc'"],
    ['Last 4 digits', "json: '$.number' | last4"],
  ],
  card_number: [['Last 4 digits', 'last4']],
  bank: [
    ['Routing number', "json: '$.routing_number'"],
    ['Account number', "json: '$.account_number'"],
  ],
  social_security_number: [
    ['Without dashes', "remove: '-'"],
    ['Last 4 digits', "remove: '-' | last4"],
  ],
  employer_id_number: [['Without dashes', "remove: '-'"]],
};

/** The common expressions for a token: its data, its type's fields, and a metadata value when it has one. */
export function expressionsFor(token: { id: string; type: string; metadata?: Record<string, string> }): TokenExpression[] {
  const { id } = token;
  // A key that quotes would break out of the expression's string is left out rather than escaped.
  const key = Object.keys(token.metadata ?? {}).find((candidate) => !/['"\\]/.test(candidate));
  const path = key === undefined ? null : /^[A-Za-z_]\w*$/.test(key) ? `$.metadata.${key}` : `$.metadata["${key}"]`;
  return [
    { label: 'The data', expression: `{{ ${id} }}` },
    ...(FIELDS[token.type] ?? []).map(([label, filter]) => ({ label, expression: `{{ ${id} | ${filter} }}` })),
    ...(path === null ? [] : [{ label: `Metadata “${key}”`, expression: `{{ token: ${id} | json: '${path}' }}` }]),
  ];
}
