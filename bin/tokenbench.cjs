#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so `tokenbench serve` needs no build step.
require('tsx/cjs');
const args = process.argv.slice(2);
if (args[0] === 'credentials') {
  require('../electron/cli/credentials.ts').main(args.slice(1)).then((code) => process.exit(code));
} else if (args[0] === 'backup') {
  require('../electron/cli/backup.ts').main(args.slice(1)).then((code) => process.exit(code));
} else if (args[0] !== 'serve' && args[0] !== undefined && !args[0].startsWith('-')) {
  process.stderr.write(`tokenbench: unknown command "${args[0]}" (try: tokenbench serve --help, tokenbench credentials --help, tokenbench backup --help)\n`);
  process.exit(2);
} else {
  require('../electron/cli/serve.ts').main(args[0] === 'serve' ? args.slice(1) : args).then((code) => process.exit(code));
}
