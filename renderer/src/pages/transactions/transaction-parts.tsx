import type { TransactionView } from '../../../../shared/workbench/transaction-contract';
import { formatCountdown } from '../../components/format';
import { useNow } from '../../components/now';
import { useApplicationsStore } from '../../state/applications-store';

export const STATE_LABELS: Record<TransactionView['state'], string> = {
  open: 'open',
  committed: 'committed',
  rolled_back: 'rolled back',
  expired: 'expired',
};

/** An application by its name, with its id on hover; the id alone when it is gone (or not listed yet). */
export function ApplicationName({ id }: { id: string | null }) {
  const application = useApplicationsStore((state) => state.value?.find((app) => app.id === id));
  if (id === null) return <span className="muted">not recorded</span>;
  return <span title={id}>{application ? application.name : <span className="mono">{id.slice(0, 8)}</span>}</span>;
}

/**
 * An open transaction's time left, ticking each second in a box of fixed width (no jump as digits change); a dash in
 * the same box once it has ended. Between its expiry and the engine's word of it: "expiring".
 */
export function TimeLeft({ transaction }: { transaction: TransactionView }) {
  const now = useNow();
  if (transaction.state !== 'open') return <span className="countdown muted">—</span>;
  const expires = Date.parse(transaction.expires_at);
  // `now` may be up to a tick old: never more than the whole lifetime (no 1:00:01 on a new one-hour transaction).
  const left = Math.min(expires - now, expires - Date.parse(transaction.created_at));
  return <span className="countdown">{left > 0 ? formatCountdown(left) : 'expiring'}</span>;
}
