import type { TokenView } from '../../../../shared/workbench/token-contract';
import { cardExpiry } from './token-format';

/** The card details a token or a token intent shows (never more of the number than BIN and last four), as one fact of a list. */
export function CardFact({ card }: { card: NonNullable<TokenView['card']> }) {
  const expiry = cardExpiry(card);
  return (
    <>
      <dt>Card</dt>
      <dd>
        {card.brand ?? 'unknown brand'} · BIN {card.bin} · last four {card.last4}
        {expiry && ` · expires ${expiry}`}
      </dd>
    </>
  );
}
