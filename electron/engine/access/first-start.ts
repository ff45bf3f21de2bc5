import type { ApplicationStore, NewApiKey } from './application-store';
import { MANAGEMENT_PERMISSIONS, TOKEN_INTENT_PERMISSIONS, TOKEN_PERMISSIONS } from './permissions';

/** Keys made on the first start of an empty store: shown once, never stored in plaintext. */
export interface BootstrapKeys {
  management: NewApiKey & { application_id: string };
  private: NewApiKey & { application_id: string };
}

/** An empty store's first two applications, a management tool and a back end, each with a key; null when it is not empty. */
export function bootstrap(applications: ApplicationStore): BootstrapKeys | null {
  if (applications.count() > 0) return null;
  const make = (name: string, type: 'management' | 'private', permissions: string[]) => {
    const { application, key } = applications.create({ name, type, permissions, rules: [] }, null, { create: true }, null);
    return { ...key!, application_id: application.id };
  };
  return {
    management: make('Tokenbench management', 'management', [...MANAGEMENT_PERMISSIONS]),
    // A back end reads and deletes the intents its browsers create, and converts them (token:create).
    private: make('Tokenbench backend', 'private', [...TOKEN_PERMISSIONS, ...TOKEN_INTENT_PERMISSIONS]),
  };
}
