// `npm run fuzz`: every fuzz property (properties.ts) against one engine, FUZZ_RUNS cases each (10,000 unless given),
// from FUZZ_SEED (random unless given; printed, with the failing path, so a failure replays). FUZZ_ONLY=<words>
// runs the properties whose name contains them. Exits non-zero on any finding.
import fc from 'fast-check';
import { historyBytes, startFuzzBench } from './fuzz-bench';
import { expectNoCanaryKept, FUZZ_PROPERTIES } from './properties';

const runs = Number(process.env.FUZZ_RUNS ?? 10_000);
const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const only = process.env.FUZZ_ONLY;

/** Runs every chosen property once; resolves with how many found something. */
async function fuzz(): Promise<number> {
  const bench = await startFuzzBench();
  console.log(`fuzz: ${runs} cases per property, seed ${seed} (FUZZ_SEED=${seed} FUZZ_RUNS=${runs} replays this run)`);
  let findings = 0;
  const started = performance.now();
  for (const property of FUZZ_PROPERTIES.filter((p) => !only || p.name.includes(only))) {
    const start = performance.now();
    const details = await fc.check(property.build(bench), { numRuns: runs, seed });
    const seconds = ((performance.now() - start) / 1000).toFixed(1);
    if (details.failed) {
      findings += 1;
      console.log(`✗ ${property.name}: failed after ${details.numRuns} cases, ${seconds} s\n${fc.defaultReportMessage(details)}\n${String(details.errorInstance)}\n`);
    } else {
      console.log(`✓ ${property.name}: ${details.numRuns} cases, ${seconds} s`);
    }
  }
  try {
    expectNoCanaryKept(bench, await historyBytes(bench));
    console.log("✓ the canary's plaintext is in neither history's files nor the log");
  } catch (error) {
    findings += 1;
    console.log(`✗ ${(error as Error).message}`);
  }
  await bench.stop();
  console.log(`fuzz: ${findings} finding(s), ${((performance.now() - started) / 1000).toFixed(0)} s in all`);
  return findings;
}

void fuzz().then((findings) => process.exit(findings > 0 ? 1 : 0));
