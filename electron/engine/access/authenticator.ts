import { ApiProblem } from '../server/problem';
import type { Application, ApplicationStore } from './application-store';
import { AccessPolicy } from './permissions';

export interface Caller {
  application: Application;
  keyId: string;
  policy: AccessPolicy;
}

/** What a request without a key gets where it needs one. */
export const missingKeyProblem = (headerName: string) => new ApiProblem(401, `Missing ${headerName} header`);

/**
 * Resolves PFX-API-KEY to the calling application. Resolved keys are cached until the application store changes,
 * so the hot paths (token reads, the proxy) cost one HMAC and a map lookup.
 */
export class Authenticator {
  private cache = new Map<string, Caller>();
  private cachedVersion = -1;

  constructor(private readonly applications: ApplicationStore) {}

  authenticate(key: string | undefined, headerName: string): Caller {
    if (!key) throw missingKeyProblem(headerName);
    if (this.cachedVersion !== this.applications.version) {
      this.cache.clear();
      this.cachedVersion = this.applications.version;
    }
    let caller = this.cache.get(key);
    if (!caller) {
      const found = this.applications.findByKey(key);
      if (!found) throw new ApiProblem(401, `The ${headerName} is not a key of this service`);
      caller = { ...found, policy: new AccessPolicy(found.application) };
      if (this.cache.size > 1000) this.cache.clear();
      this.cache.set(key, caller);
    }
    return caller;
  }

  /** The application `id` as a caller, for work done later on its behalf (the workbench's reveal); undefined once it is gone. */
  callerFor(id: string): Caller | undefined {
    const application = this.applications.get(id);
    return application && { application, keyId: 'workbench', policy: new AccessPolicy(application) };
  }
}
