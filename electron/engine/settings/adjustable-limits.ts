import { resolveConfig, type EngineConfig } from '../engine-config';
import { ApiProblem } from '../server/problem';
import type { Db } from '../storage/database';

/** The limits Settings may change while the engine runs, each with the `serve` flag that sets it at start. */
export const ADJUSTABLE_LIMITS = {
  proxyTimeoutMs: '--proxy-timeout',
  maxBodyBytes: '--max-body',
  maxExpressions: '--max-expressions',
  denyPrivateDestinations: '--deny-private-destinations',
} as const satisfies Partial<Record<keyof EngineConfig, string>>;

export type LimitName = keyof typeof ADJUSTABLE_LIMITS;
export type Limits = Pick<EngineConfig, LimitName>;
/** A change: a value, or null to go back to the default. */
export type LimitsChange = { [K in LimitName]?: Limits[K] | null };

export interface LimitState<V> {
  /** What the engine applies now. */
  value: V;
  default: V;
  /** What Settings saved in the vault; null when nothing is saved. */
  stored: V | null;
  /** The flag, with its value, given at start: it wins over what is stored until the engine starts without it. */
  pinnedBy: string | null;
}
export type LimitsState = { [K in LimitName]: LimitState<Limits[K]> };

const SETTINGS_KEY = 'adjustable_limits';
const NAMES = Object.keys(ADJUSTABLE_LIMITS) as LimitName[];

/**
 * The proxy's adjustable limits: saved in the vault's settings table, applied to the running engine at once (the
 * next request is held to them), and outranked by a flag given at start. `config` is the engine's own, whose fields
 * the request path reads each time; `apply` carries a change to the parts that copied a value (the forwarder, the
 * expression engine).
 */
export class AdjustableLimits {
  private stored: Partial<Limits>;
  /** The limits given at start: their flags win. */
  private readonly pinned: Partial<Limits>;
  private readonly defaults: Limits;

  constructor(
    private readonly db: Db,
    private readonly config: EngineConfig,
    /** What `startEngine` was given, a flag left out being undefined. */
    given: Partial<EngineConfig>,
    private readonly apply: (limits: Limits) => void = () => undefined,
  ) {
    const defaults = resolveConfig();
    this.pinned = Object.fromEntries(NAMES.filter((name) => given[name] !== undefined).map((name) => [name, given[name]]));
    this.defaults = Object.fromEntries(NAMES.map((name) => [name, defaults[name]])) as unknown as Limits;
    const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(SETTINGS_KEY) as { value: string } | undefined;
    this.stored = row ? this.known(JSON.parse(row.value) as Partial<Limits>) : {};
    this.applyToConfig();
  }

  /** Only the names this version knows: a setting an older or newer version saved is left out, not trusted. */
  private known(saved: Partial<Limits>): Partial<Limits> {
    return Object.fromEntries(NAMES.filter((name) => saved[name] !== undefined && saved[name] !== null).map((name) => [name, saved[name]]));
  }

  private current(): Limits {
    return Object.fromEntries(NAMES.map((name) => [name, this.pinned[name] ?? this.stored[name] ?? this.defaults[name]])) as unknown as Limits;
  }

  private applyToConfig(): Limits {
    const limits = this.current();
    Object.assign(this.config, limits);
    return limits;
  }

  /** Saves and applies a change in one step; a pinned limit is refused (409) and nothing is changed. */
  change(change: LimitsChange): LimitsState {
    for (const name of NAMES) {
      if (change[name] === undefined || this.pinned[name] === undefined) continue;
      throw new ApiProblem(409, `${this.flagOf(name)} was given at start and wins over Settings: start the engine without it to change this here`);
    }
    const next: Partial<Limits> = { ...this.stored };
    for (const name of NAMES) {
      const value = change[name];
      if (value === null) delete next[name];
      else if (value !== undefined) (next as Record<LimitName, unknown>)[name] = value;
    }
    this.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(SETTINGS_KEY, JSON.stringify(next));
    this.stored = next;
    this.apply(this.applyToConfig());
    return this.state();
  }

  private flagOf(name: LimitName): string {
    const value = this.pinned[name];
    return typeof value === 'boolean' ? ADJUSTABLE_LIMITS[name] : `${ADJUSTABLE_LIMITS[name]} ${value}`;
  }

  state(): LimitsState {
    const current = this.current();
    const entry = <K extends LimitName>(name: K): LimitState<Limits[K]> => ({
      value: current[name],
      default: this.defaults[name],
      stored: this.stored[name] ?? null,
      pinnedBy: this.pinned[name] === undefined ? null : this.flagOf(name),
    });
    return {
      proxyTimeoutMs: entry('proxyTimeoutMs'),
      maxBodyBytes: entry('maxBodyBytes'),
      maxExpressions: entry('maxExpressions'),
      denyPrivateDestinations: entry('denyPrivateDestinations'),
    };
  }
}
