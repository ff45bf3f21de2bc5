import { z } from 'zod';
import type { Route } from '../server/route-types';
import { parseWith } from '../server/validation';
import { cardBrand } from './card-details';

const cardDetailsQuery = z.object({
  bin: z.string({ error: 'bin is required: the first 6 to 8 digits of a card number' }).regex(/^\d{6,8}$/, 'bin must be the first 6 to 8 digits of a card number'),
});

/**
 * `GET /enrichments/card-details` (docs/api.md, Card details), for any valid key: what a BIN tells offline, its brand
 * by the prefixes the vault's tokens are branded with. Funding, segment and issuer need the vendor's BIN tables.
 */
export function enrichmentRoutes(): Route[] {
  return [
    {
      method: 'GET',
      path: '/enrichments/card-details',
      handler: (ctx) => {
        const { bin } = parseWith(cardDetailsQuery, Object.fromEntries(ctx.query()));
        const brand = cardBrand(bin);
        return { status: 200, body: brand === null ? {} : { brand } };
      },
    },
  ];
}
