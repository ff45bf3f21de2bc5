import { resolveConfig, type EngineConfig } from '../engine-config';
import { ApiProblem } from '../server/problem';
import { afterRun, type AnyUnitRunner, tx } from '../storage/unit';
import { followSetting, readSetting, writingSetting } from './setting-row';

/** The proxy's limits Settings may change while the engine runs, each with the `serve` flag that sets it at start. */
export const PROXY_LIMITS = {
  proxyTimeoutMs: '--proxy-timeout',
  maxBodyBytes: '--max-body',
  maxExpressions: '--max-expressions',
  denyPrivateDestinations: '--deny-private-destinations',
} as const satisfies Partial<Record<keyof EngineConfig, string>>;

/** How much request history is kept, likewise. */
export const HISTORY_RETENTION = {
  historyLimit: '--history-limit',
  historyMaxAgeDays: '--history-max-age',
} as const satisfies Partial<Record<keyof EngineConfig, string>>;

/** Whether history keeps destinations' answers, and up to what size, likewise. */
export const HISTORY_ANSWERS = {
  historyAnswers: '--history-answers',
  historyAnswerBytes: '--history-answer-bytes',
} as const satisfies Partial<Record<keyof EngineConfig, string>>;

/** How long new token intents live, likewise. */
export const TOKEN_INTENT_TTL = {
  tokenIntentTtlSeconds: '--token-intent-ttl',
} as const satisfies Partial<Record<keyof EngineConfig, string>>;

/** Whether DELETE /tenants/self is allowed, likewise: an engine setting, never the tenant's own. */
export const TENANT_DELETE = {
  allowTenantDelete: '--allow-tenant-delete',
} as const satisfies Partial<Record<keyof EngineConfig, string>>;

/** How long `GET /logs` keeps its lines, likewise. */
export const LOG_RETENTION = {
  logRetentionHours: '--log-retention',
} as const satisfies Partial<Record<keyof EngineConfig, string>>;

type Values<Name extends keyof EngineConfig> = Pick<EngineConfig, Name>;
/** A change: a value, or null to go back to the default. */
export type SettingsChange<Name extends keyof EngineConfig> = { [K in Name]?: EngineConfig[K] | null };

export interface SettingState<V> {
  /** What the engine applies now. */
  value: V;
  default: V;
  /** What Settings saved in the vault; null when nothing is saved. */
  stored: V | null;
  /** The flag, with its value, given at start: it wins over what is stored until the engine starts without it. */
  pinnedBy: string | null;
}
export type SettingsState<Name extends keyof EngineConfig> = { [K in Name]: SettingState<EngineConfig[K]> };

/**
 * A group of engine settings Settings may change while the engine runs: saved as one row of the vault's settings
 * table, applied to the running engine at once, and outranked by a flag given at start. `config` is the engine's
 * own, whose fields the request path reads each time; `apply` carries a change to the parts that copied a value
 * (the forwarder, the expression engine, the history's worker).
 */
export class AdjustableSettings<Name extends keyof EngineConfig> {
  private stored: Partial<Values<Name>> = {};
  /** The values given at start: their flags win. */
  private readonly pinned: Partial<Values<Name>>;
  private readonly defaults: Values<Name>;
  private readonly names: Name[];

  constructor(
    private readonly units: AnyUnitRunner,
    /** The row of the settings table this group is kept in. */
    private readonly key: string,
    private readonly flags: Record<Name, string>,
    private readonly config: EngineConfig,
    /** What `startEngine` was given, a flag left out being undefined. */
    given: Partial<EngineConfig>,
    private readonly apply: (values: Values<Name>) => void = () => undefined,
  ) {
    const defaults = resolveConfig();
    this.names = Object.keys(flags) as Name[];
    this.pinned = this.pick(given);
    this.defaults = this.pick(defaults) as Values<Name>;
    // Another replica's change applies here as this one's does.
    followSetting(units, key, async () => {
      await this.load();
      this.apply(this.current());
    });
  }

  /** Reads what Settings saved and applies it: once at start, before anything reads the config. */
  async load(): Promise<void> {
    const value = await this.units.read(() => tx.get(readSetting, [this.key]));
    // Only the names this version knows: a setting an older or newer version saved is left out, not trusted.
    this.stored = value === undefined ? {} : this.pick(JSON.parse(value) as Partial<EngineConfig>);
    this.applyToConfig();
  }

  private pick(from: Partial<EngineConfig>): Partial<Values<Name>> {
    return Object.fromEntries(this.names.filter((name) => from[name] !== undefined && from[name] !== null).map((name) => [name, from[name]])) as Partial<
      Values<Name>
    >;
  }

  private current(): Values<Name> {
    return Object.fromEntries(this.names.map((name) => [name, this.pinned[name] ?? this.stored[name] ?? this.defaults[name]])) as Values<Name>;
  }

  private applyToConfig(): Values<Name> {
    const values = this.current();
    Object.assign(this.config, values);
    return values;
  }

  /** Saves and applies a change in one step; a pinned setting is refused (409) and nothing is changed. */
  async change(change: SettingsChange<Name>): Promise<SettingsState<Name>> {
    for (const name of this.names) {
      if (change[name] === undefined || this.pinned[name] === undefined) continue;
      throw new ApiProblem(409, `${this.flagOf(name)} was given at start and wins over Settings: start the engine without it to change this here`);
    }
    const next: Partial<Values<Name>> = { ...this.stored };
    for (const name of this.names) {
      const value = change[name];
      if (value === null) delete next[name];
      else if (value !== undefined) next[name] = value;
    }
    return afterRun(this.units.run(() => writingSetting(this.key, JSON.stringify(next))), () => {
      this.stored = next;
      this.apply(this.applyToConfig());
      return this.state();
    });
  }

  private flagOf(name: Name): string {
    const value = this.pinned[name];
    return typeof value === 'boolean' ? this.flags[name] : `${this.flags[name]} ${String(value)}`;
  }

  state(): SettingsState<Name> {
    const current = this.current();
    return Object.fromEntries(
      this.names.map((name) => [
        name,
        {
          value: current[name],
          default: this.defaults[name],
          stored: this.stored[name] ?? null,
          pinnedBy: this.pinned[name] === undefined ? null : this.flagOf(name),
        },
      ]),
    ) as SettingsState<Name>;
  }
}
