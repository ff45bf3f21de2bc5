import type { EventActor } from '../events/event-outbox';
import { ApiProblem } from '../server/problem';
import type { Application, ApplicationStore } from './application-store';
import { AccessPolicy } from './permissions';
import type { SessionGrant, SessionStore } from './session-store';

export interface Caller {
  application: Application;
  keyId: string;
  policy: AccessPolicy;
  /** Set when the key is a session's: which one, and when it ends. */
  session?: { id: string; expiresMs: number };
}

/** The caller as the events of its requests name it: a session acts as its application. */
export const actorOf = (caller: Caller): EventActor => ({ id: caller.application.id, name: caller.application.name, type: 'application' });

/** What a request without a key gets where it needs one. */
export const missingKeyProblem = (headerName: string) => new ApiProblem(401, `Missing ${headerName} header`);

/**
 * A session acts as its public application, with exactly what its authorization granted (nothing before one). Its
 * grants are those a private application may hold, so it is judged as one: that is what lets a front end's session
 * read tokens or call the proxy, which its public key never may.
 */
function sessionCaller(owner: Application, grant: SessionGrant): Caller {
  const application: Application = { ...owner, type: 'private', permissions: grant.permissions ?? [], rules: grant.rules ?? [] };
  return { application, keyId: grant.id, policy: new AccessPolicy(application), session: { id: grant.id, expiresMs: Date.parse(grant.expires_at) } };
}

/**
 * Resolves PFX-API-KEY to the calling application, or to a session. Resolved keys are cached until the application or
 * session store changes (a session's also until it ends), so the hot paths (token reads, the proxy) cost one HMAC and
 * a map lookup.
 */
export class Authenticator {
  private cache = new Map<string, Caller>();
  private cachedVersion = -1;
  private cachedSessionsVersion = -1;

  constructor(
    private readonly applications: ApplicationStore,
    private readonly sessions?: SessionStore,
  ) {}

  authenticate(key: string | undefined, headerName: string): Caller {
    if (!key) throw missingKeyProblem(headerName);
    const sessionsVersion = this.sessions?.version ?? 0;
    if (this.cachedVersion !== this.applications.version || this.cachedSessionsVersion !== sessionsVersion) {
      this.cache.clear();
      this.cachedVersion = this.applications.version;
      this.cachedSessionsVersion = sessionsVersion;
    }
    let caller = this.cache.get(key);
    if (caller?.session && caller.session.expiresMs <= Date.now()) {
      this.cache.delete(key);
      caller = undefined;
    }
    if (!caller) {
      caller = this.resolve(key);
      if (!caller) throw new ApiProblem(401, `The ${headerName} is not a key of this service`);
      if (this.cache.size > 1000) this.cache.clear();
      this.cache.set(key, caller);
    }
    return caller;
  }

  private resolve(key: string): Caller | undefined {
    const found = this.applications.findByKey(key);
    if (found) return { ...found, policy: new AccessPolicy(found.application) };
    const grant = this.sessions?.findByKey(key);
    const owner = grant && this.applications.get(grant.application_id);
    return owner && sessionCaller(owner, grant);
  }

  /** The application `id` as a caller, for work done later on its behalf (the workbench's reveal); undefined once it is gone. */
  callerFor(id: string): Caller | undefined {
    const application = this.applications.get(id);
    return application && { application, keyId: 'workbench', policy: new AccessPolicy(application) };
  }
}
