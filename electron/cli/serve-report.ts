/** What `tokenbench serve` tells its user: where things are once it runs, the risk of its host, why it did not start. */
import { isIPv4 } from 'node:net';
import { isWildcardHost, type Engine, type StartOptions } from '../engine';

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || (isIPv4(host) && host.startsWith('127.'));
}

export function startupReport(engine: Engine): string {
  // The engine's URLs are already the ones a client here uses (a wildcard bind is announced at loopback).
  const lines = [`Tokenbench is serving ${engine.url}`];
  if (engine.echoUrl) lines.push(`Echo destination at ${engine.echoUrl}`);
  lines.push(engine.config.dataDir ? `Vault: ${engine.config.dataDir}` : 'Vault: in memory (nothing is kept)');
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

/** Said when serve binds beyond loopback, which the security notes otherwise promise; null on loopback. */
export function exposureWarning(engine: Engine): string | null {
  const host = engine.config.host;
  if (isLoopback(host)) return null;
  const lines = [
    `Warning: --host ${host} opens Tokenbench to other machines, not only this one. Whoever can reach this machine can use:`,
    `  - the API on port ${engine.port}: with a key, create, read and reveal tokens, and send requests from here through /proxy.`,
  ];
  if (engine.echoUrl) lines.push(`  - the echo destination on port ${new URL(engine.echoUrl).port}, without a key.`);
  lines.push("  The Host check stops other web sites' pages, not other programs.");
  if (!isWildcardHost(host)) {
    lines.push(`  It admits only localhost, 127.0.0.1 and [::1]: requests addressed to ${host} are refused.`);
  }
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
  return message;
}
