import type { Page } from '@playwright/test';

/**
 * The History page as a user drives it: by role and accessible name. A row's trace id is not shown in the row, so a
 * row is found by the trace its request sent through its `data-trace` attribute (the one place where no name tells two
 * requests to the same path apart).
 */
export function historyPage(page: Page) {
  const requests = page.getByRole('region', { name: 'Requests', exact: true });
  // Data rows have cells; the header row has column headers only.
  const rows = requests.getByRole('row').filter({ has: page.getByRole('cell') });
  // The detail is named by its heading: "Request" while none is selected, else the request's method and path.
  const entry = page.getByRole('region', { name: /^(Request$|[A-Z]+ \/)/ });
  const rowOfTrace = (trace: string) => requests.locator(`[data-trace="${trace}"]`);
  return {
    requests,
    rows,
    entry,
    rowOfTrace,
    /** The rows' paths, top to bottom. */
    paths: () => rows.getByRole('button').allInnerTexts(),
    /** The rows' traces, top to bottom. */
    traces: () => rows.evaluateAll((all) => all.map((row) => row.getAttribute('data-trace'))),
    /** Opens the request a row lists by its path (the first row of that path, or of that path and trace). */
    open: (path: string) => rows.getByRole('button', { name: path, exact: true }).first().click(),
    /** Opens the request that sent this trace id: its row's one button, named by the path it asked for. */
    openTrace: (trace: string) => rowOfTrace(trace).getByRole('button').click(),
    loadOlder: requests.getByRole('button', { name: 'Load older requests' }),
    noMatch: requests.getByText('No request the engine keeps matches.'),
    show: (view: string) => requests.getByRole('combobox', { name: 'Show' }).selectOption(view),
    search: requests.getByRole('searchbox', { name: 'Search the requests' }),
  };
}
