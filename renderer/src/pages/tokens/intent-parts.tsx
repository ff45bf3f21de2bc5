import type { TokenIntentList, TokenIntentView } from '../../../../shared/workbench/token-intent-contract';
import { formatCountdown } from '../../components/format';
import { useNow } from '../../components/now';
import { cardExpiry } from './token-format';

/** The intents still live at `now`: one whose countdown ran out leaves at once, before the engine's purge. */
export const liveIntents = (list: TokenIntentList | null, now: number): TokenIntentView[] =>
  list ? list.intents.filter((intent) => Date.parse(intent.expires_at) > now) : [];

/** What an intent shows of its data in a line: a card's brand, last four and expiry; a bank account's routing number and its account's last four. */
export function intentSummary({ card, bank }: TokenIntentView): string {
  if (card) return `${card.brand ?? 'unknown brand'} ··${card.last4} ${cardExpiry(card)}`.trim();
  if (bank) return `${bank.routing_number} ··${bank.account_number_last4}`;
  return '–';
}

/** Time left before the intent expires, ticking each second; a timer for assistive technology (which does not announce each tick). */
export function IntentTimeLeft({ intent }: { intent: TokenIntentView }) {
  const now = useNow();
  const expires = Date.parse(intent.expires_at);
  // `now` may be up to a tick old: never more than the whole lifetime.
  const left = Math.min(expires - now, expires - Date.parse(intent.created_at));
  return (
    <span className="countdown" role="timer" title={`Expires ${new Date(expires).toLocaleString()}`}>
      {left > 0 ? `${formatCountdown(left)} left` : 'expired'}
    </span>
  );
}
