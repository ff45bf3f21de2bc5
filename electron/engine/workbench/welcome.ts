import type { ApplicationStore } from '../access/application-store';
import type { BootstrapKeys } from '../access/first-start';
import type { SentReply } from '../../../shared/workbench/methods';

/**
 * The first-start keys, held in memory (never on disk) until the workbench's welcome view has taken them once. Only a
 * holder of the workbench session (the browser workbench) or the app's own window (IPC) can ask, as for every method.
 */
export class Welcome {
  constructor(
    private readonly applications: ApplicationStore,
    private keys: BootstrapKeys | null,
  ) {}

  /** A new first start (after a wipe): its keys wait for the welcome view; null when it made none (a seed's applications). */
  hold(keys: BootstrapKeys | null): void {
    this.keys = keys;
  }

  /** The keys, once: the next call answers null. */
  take(): SentReply<'takeWelcome'> {
    const keys = this.keys;
    this.keys = null;
    if (!keys) return { keys: null };
    const entry = ({ application_id, key }: BootstrapKeys['management']) => ({
      application_id,
      application_name: this.applications.get(application_id)?.name ?? 'deleted since',
      key,
    });
    return { keys: { management: entry(keys.management), private: entry(keys.private) } };
  }
}
