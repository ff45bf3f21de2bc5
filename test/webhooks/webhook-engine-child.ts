/**
 * An engine in a process of its own, for a test that kills it with SIGKILL: `DATA_DIR UI_DIR RETRY_DELAYS_JSON`. It
 * prints one line with its URL and the browser workbench's session, through which the test drives it.
 */
import { startEngine } from '../../electron/engine';

async function main(): Promise<void> {
  const [dataDir, uiDir, delays] = process.argv.slice(2);
  const engine = await startEngine({
    dataDir,
    port: 0,
    echoPort: null,
    welcome: false,
    browserWorkbench: { uiDir },
    webhookRetryDelaysMs: JSON.parse(delays) as number[],
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(`Webhook engine is serving ${engine.url} with session ${engine.browserWorkbench!.session}\n`);
}

void main();
