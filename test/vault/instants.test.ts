import { describe, expect, it } from 'vitest';
import { parseExpiryInstant, parseIsoInstant } from '../../electron/engine/vault/instants';

const iso = (text: string, parse = parseExpiryInstant) => {
  const instant = parse(text);
  return instant && new Date(instant.ms).toISOString();
};

describe('instants as clients write them', () => {
  it.each([
    ['2/29/2032', '2032-02-29T00:00:00.000Z'],
    ['12/31/2030 12:00:00 AM', '2030-12-31T00:00:00.000Z'],
    ['12/31/2030 12:30:00 PM', '2030-12-31T12:30:00.000Z'],
    ['12/31/2030 11:59 pm -14:00', '2031-01-01T13:59:00.000Z'],
    ['1/2/2030 23:05:09 +14:00', '2030-01-02T09:05:09.000Z'],
    ['2030-01-02T03:04:05.123987654+01:30', '2030-01-02T01:34:05.123Z'],
    ['0050-06-01T00:00Z', '0050-06-01T00:00:00.000Z'],
  ])('reads %s as %s', (text, expected) => {
    expect(iso(text)).toBe(expected);
  });

  it.each(['2/29/2031', '2100-02-29', '12/31/2030 0:30 AM', '12/31/2030 13:00 PM', '1/1/2030 24:00', '2030-01-01T00:00+14:01', '2030-01-01T00:00+01:60', '1/1/2030 -07:00', ' ', ''])(
    'finds no instant in %j',
    (text) => {
      expect(parseExpiryInstant(text)).toBeNull();
    },
  );

  it('keeps the US forms out of ISO-only fields and says when only a date was written', () => {
    expect(parseIsoInstant('8/26/2030 7:23:57 PM -07:00')).toBeNull();
    expect(parseIsoInstant('2030-08-26')).toEqual({ ms: Date.UTC(2030, 7, 26), dateOnly: true });
    expect(parseExpiryInstant('8/26/2030')).toEqual({ ms: Date.UTC(2030, 7, 26), dateOnly: true });
    expect(parseExpiryInstant('8/26/2030 1:00 AM')?.dateOnly).toBe(false);
  });
});
