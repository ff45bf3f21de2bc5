/** What `tokenbench serve` tells its user: where things are once it runs, the risk of its host, why it did not start. */
import { databaseNamed, isLoopbackHost, isWildcardHost, WrongMasterKeyError, type Engine, type EngineConfig, type StartOptions } from '../engine';
import { MASTER_KEY_ENV } from './serve-options';

export function startupReport(engine: Engine): string {
  // The engine's URLs are already the ones a client here uses (a wildcard bind is announced at loopback).
  const lines = [`Tokenbench is serving ${engine.url}`];
  if (engine.config.publicUrls.length > 0) lines.push(`Public URL: ${engine.config.publicUrls.join(', ')}`);
  if (engine.echoUrl) lines.push(`Echo destination at ${engine.echoUrl}`);
  lines.push(vaultLine(engine.config));
  lines.push(`Saved requests: ${engine.collectionsFolder}`);
  lines.push(
    !engine.browserWorkbench
      ? 'Workbench: not built; run `npm run build`, then start serve again'
      : engine.browserWorkbench.sessionInAddress
        ? `Workbench: ${engine.browserWorkbench.url}`
        : `Workbench: ${engine.browserWorkbench.url} (sign in with TOKENBENCH_SESSION_SECRET or a workbench credential)`,
  );
  const { identityHeader, trustedProxies } = engine.config;
  if (identityHeader !== null) lines.push(`Identity header: ${identityHeader} names the workbench's person on requests from ${trustedProxies.join(', ')} only`);
  const report = engine.seedReport;
  if (report) {
    lines.push(`Seed: ${report.created.length} created, ${report.unchanged.length} unchanged, ${report.conflicts.length} conflicts`);
    for (const conflict of report.conflicts) lines.push(`  conflict, skipped: ${conflict}`);
  }
  const keys = engine.bootstrapKeys;
  if (keys) {
    lines.push(
      'First start: two applications were created. Their keys are shown this once:',
      `  management key (application:*, proxy:*):  ${keys.management.key}`,
      `  private key (token:*):                     ${keys.private.key}`,
    );
  }
  return lines.join('\n') + '\n';
}

/** Where the vault is kept; a database by host, port, name and user, never its password. */
export function vaultLine({ databaseUrl, dataDir }: Pick<EngineConfig, 'databaseUrl' | 'dataDir'>): string {
  if (databaseUrl !== null) return `Vault: PostgreSQL database ${databaseNamed(databaseUrl)}`;
  return dataDir ? `Vault: ${dataDir}` : 'Vault: in memory (nothing is kept)';
}

/**
 * Said when serve binds beyond loopback, which the security notes otherwise promise: who can reach what, and the
 * safe defaults in force there, each with the flag that changes it; null on loopback.
 */
export function exposureWarning(engine: Engine): string | null {
  const { host, publicUrls, denyPrivateDestinations, allowCode, collectionsDir, proxiesDir } = engine.config;
  if (isLoopbackHost(host)) return null;
  const lines = [
    `Warning: --host ${host} opens Tokenbench to other machines, not only this one. Whoever can reach this machine can use:`,
    `  - the API on port ${engine.port}: with a key, create, read and reveal tokens, and send requests from here through /proxy.`,
  ];
  if (engine.echoUrl) lines.push(`  - the echo destination on port ${new URL(engine.echoUrl).port}, without a key.`);
  lines.push("  The Host check stops other web sites' pages, not other programs.");
  const names = ['localhost, 127.0.0.1 and [::1]', ...publicUrls.map((url) => new URL(url).host)].join(', ');
  if (!isWildcardHost(host)) lines.push(`  It admits only ${names}: requests addressed to ${host} are refused unless --public-url names it.`);
  else lines.push(`  It admits only the Host names ${names} (--public-url adds one).`);
  lines.push(
    'In force beyond loopback:',
    denyPrivateDestinations
      ? "  - private destinations refused: the proxy and webhooks reach no loopback, private or own address but the echo destination (--allow-private-destinations lets them)"
      : '  - private destinations allowed by --allow-private-destinations: the proxy and webhooks reach this network',
    allowCode
      ? "  - code runs (--allow-code): anyone with a management key runs code transforms and reactors as this server's user"
      : '  - code transforms and reactors refused, saved or called (--allow-code runs them)',
    `  - saved requests in ${engine.collectionsFolder}${collectionsDir === null ? '' : ' (--collections)'}, proxies and reactors ${proxiesDir === null ? 'from no folder' : `from ${proxiesDir} (--proxies)`}: fixed by these flags, never chosen in Settings`,
  );
  lines.push('  Keep the default --host 127.0.0.1 unless you mean this (inside a container, say).');
  return lines.join('\n') + '\n';
}

/** One line on why the engine did not start; the flag to change, where there is one. */
export function startFailure(error: unknown, options: StartOptions): string {
  const { code, port, message } = error as NodeJS.ErrnoException & { port?: number };
  if (code === 'EADDRINUSE' && port !== undefined) {
    const flag = port === options.port ? '--port' : '--echo-port';
    return `Port ${port} is in use (another Tokenbench?): pick another with ${flag}`;
  }
  if (error instanceof WrongMasterKeyError) {
    const keyFile = error.dataDir === null ? '' : ` / the key file in ${error.dataDir}`;
    return `this vault was sealed with another master key: start with the key it was made with (${MASTER_KEY_ENV} / --master-key-file${keyFile})`;
  }
  return message;
}
