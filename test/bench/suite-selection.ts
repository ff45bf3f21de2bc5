/** What a suite says of itself to the command line: whether `--baseline REF` makes it measure builds in turn. */
export interface SuiteTraits {
  comparesBuilds?: boolean;
}

/**
 * The suites a run names (all when none is named). Refused: an unknown name, and `--baseline` given to a named suite
 * that measures one build only, which would run without the comparison asked for. When no suite is named, the refs go
 * to the suites that compare builds.
 */
export function selectSuites(named: readonly string[] | undefined, known: Record<string, SuiteTraits>, baselineRefs: readonly string[]): string[] {
  const all = Object.keys(known);
  const suites = named ? [...named] : all;
  const unknown = suites.filter((s) => !Object.hasOwn(known, s));
  if (unknown.length > 0) throw new Error(`Unknown suite ${unknown.join(', ')}; known: ${all.join(', ')}`);
  const single = suites.filter((s) => !known[s].comparesBuilds);
  if (named && baselineRefs.length > 0 && single.length > 0) {
    const comparing = all.filter((s) => known[s].comparesBuilds);
    throw new Error(`--baseline takes suites that compare builds (${comparing.join(', ')}), not ${single.join(', ')}`);
  }
  return suites;
}
