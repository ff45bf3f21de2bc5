import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from './child-process';
import type { Table } from './report';

/** The parts of a V8 `.cpuprofile` (node --cpu-prof) read here. */
interface CpuProfile {
  nodes: { id: number; hitCount?: number; callFrame: { functionName: string; url: string } }[];
}

const IDLE = '(idle)';
/** node names profiles CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; thread 0 is the main thread, the service's. */
const MAIN_THREAD_PROFILE = /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/;

/** Where a function lives: a repo file, a package, or a node internal. */
function placeOf(url: string): string {
  if (url === '') return '(native)';
  if (!url.startsWith('file://')) return url.startsWith('node:') ? 'node internals' : url;
  const path = relative(REPO_ROOT, fileURLToPath(url));
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  return pkg ? pkg[1] : path;
}

const percent = (part: number, whole: number) => `${((part / whole) * 100).toFixed(1)} %`;

function top(counts: Map<string, number>, busy: number, n: number): (string | number)[][] {
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, n).map(([name, hits]) => [name, percent(hits, busy)]);
}

/**
 * Self time of the busiest functions and places in the main-thread profiles `dir` holds (other threads, such as
 * tsx's module loader, idle), as shares of the samples where the thread was not idle; `label` names what it did.
 */
export function summarizeCpuProfiles(dir: string, label: string, topN = 15): Table[] {
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  for (const file of readdirSync(dir).filter((f) => MAIN_THREAD_PROFILE.test(f))) {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    for (const { hitCount = 0, callFrame } of profile.nodes) {
      if (hitCount === 0) continue;
      if (callFrame.functionName === IDLE) {
        idle += hitCount;
        continue;
      }
      busy += hitCount;
      // No line numbers: under tsx they are the transpiled code's.
      const place = placeOf(callFrame.url);
      const name = `${callFrame.functionName || '(anonymous)'} (${place})`;
      byFunction.set(name, (byFunction.get(name) ?? 0) + hitCount);
      byPlace.set(place, (byPlace.get(place) ?? 0) + hitCount);
    }
  }
  if (busy === 0) return [];
  const title = `Service CPU profile, ${label}: self time (share of the ${percent(busy, busy + idle)} busy samples)`;
  return [
    { title: `${title} by function`, columns: ['function', 'self'], rows: top(byFunction, busy, topN) },
    { title: `${title} by file or package`, columns: ['file or package', 'self'], rows: top(byPlace, busy, topN) },
  ];
}
