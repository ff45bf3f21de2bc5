import {
  BRAND_RULES,
  generateAccountNumber,
  generateBankAccount,
  generateCard,
  generateCardNumber,
  generateEin,
  generateRoutingNumber,
  generateSsn,
  type CardBrandName,
  type SsnRange,
} from '../../../../shared/test-data/generators';

/** The data fields of a token type's form, as typed (all text), and how they become the token's `data`. */
export interface DataForm {
  fields: { key: string; label: string; placeholder?: string }[];
  /** The `data` the API takes, or a message for a field the form can tell is wrong before sending. */
  data(values: Record<string, string>): { data: unknown } | { field: string; error: string };
  /** Fresh test data as the fields hold it; absent for free JSON. */
  generate?(choice: GeneratorChoice): Record<string, string>;
}

/** What the generator is asked for: a card brand, an SSN range. */
export interface GeneratorChoice {
  brand: CardBrandName;
  ssnRange: SsnRange;
}

const text = (values: Record<string, string>, key: string) => (values[key] ?? '').trim();
const one = (key: string, label: string, placeholder: string, generate: (choice: GeneratorChoice) => string): DataForm => ({
  fields: [{ key, label, placeholder }],
  data: (values) => ({ data: text(values, key) }),
  generate: (choice) => ({ [key]: generate(choice) }),
});
/** Blank is left out; anything else must be a whole number, as the API takes it. */
const optionalInteger = (values: Record<string, string>, key: string): number | undefined | null => {
  const value = text(values, key);
  if (value === '') return undefined;
  return /^\d+$/.test(value) ? Number(value) : null;
};

const card: DataForm = {
  fields: [
    { key: 'number', label: 'Card number', placeholder: '4242424242424242' },
    { key: 'expiration_month', label: 'Expiration month', placeholder: '12' },
    { key: 'expiration_year', label: 'Expiration year', placeholder: '2030' },
    { key: 'cvc', label: 'CVC', placeholder: '123' },
  ],
  data(values) {
    const month = optionalInteger(values, 'expiration_month');
    const year = optionalInteger(values, 'expiration_year');
    if (month === null) return { field: 'data.expiration_month', error: 'A month is a number from 1 to 12' };
    if (year === null) return { field: 'data.expiration_year', error: 'A year is a 4-digit number' };
    const cvc = text(values, 'cvc');
    return { data: { number: text(values, 'number'), expiration_month: month, expiration_year: year, ...(cvc && { cvc }) } };
  },
  generate: ({ brand }) => {
    const { number, expiration_month, expiration_year, cvc } = generateCard(brand);
    return { number, expiration_month: String(expiration_month), expiration_year: String(expiration_year), cvc };
  },
};

const bank: DataForm = {
  fields: [
    { key: 'routing_number', label: 'Routing number', placeholder: '9 digits' },
    { key: 'account_number', label: 'Account number', placeholder: 'up to 17 digits' },
  ],
  data: (values) => ({ data: { routing_number: text(values, 'routing_number'), account_number: text(values, 'account_number') } }),
  generate: () => generateBankAccount(),
};

const json: DataForm = {
  fields: [{ key: 'json', label: 'Data (JSON)', placeholder: '{"any": "JSON"}' }],
  data(values) {
    try {
      return { data: JSON.parse(text(values, 'json')) };
    } catch {
      return { field: 'data', error: 'The data is JSON: a string in quotes, a number, an object…' };
    }
  },
};

/** One form per token type, with its generator of valid test data. */
export const DATA_FORMS: Record<string, DataForm> = {
  card,
  card_number: one('number', 'Card number', '4242424242424242', ({ brand }) => generateCardNumber(brand)),
  bank,
  us_bank_account_number: one('data', 'Account number', '3 to 17 digits', () => generateAccountNumber()),
  us_bank_routing_number: one('data', 'Routing number', '9 digits', () => generateRoutingNumber()),
  social_security_number: one('data', 'Social security number', '900-12-3456', ({ ssnRange }) => generateSsn(ssnRange)),
  employer_id_number: one('data', 'Employer ID number', '07-1234567', () => generateEin()),
  token: json,
};

/** Where the API names a data field (`data.number`) for a form field: the card's number is `data` of a card_number. */
export function dataFieldOf(type: string, key: string): string {
  const form = DATA_FORMS[type];
  if (form.fields.length === 1) return 'data';
  return `data.${key}`;
}

export const BRAND_OPTIONS = Object.entries(BRAND_RULES).map(([brand, rule]) => ({ brand: brand as CardBrandName, label: rule.label }));
