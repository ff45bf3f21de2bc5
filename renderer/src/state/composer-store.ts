import { create } from 'zustand';
import { persist } from 'zustand/middleware';
import type { RemoteTarget, Exchange } from '../../../shared/workbench/composer-contract';
import type { SavedRequest } from '../../../shared/workbench/collection-contract';
import { sameRequest } from './collections-store';
import { lazyStorage } from './lazy-storage';
import { randomId } from '../api/random-id';

/** The request being composed: the shape a collection saves it in. */
export type ComposerDraft = SavedRequest;
export type ComposerMethod = ComposerDraft['method'];
export type RequestKind = ComposerDraft['kind'];
export type BodyMode = ComposerDraft['bodyMode'];
export type HeaderRow = ComposerDraft['headers'][number];
/** The service's own headers the Composer offers as named fields. */
export type ServiceHeader = keyof ComposerDraft['service'];

/** The answer to the last request sent, with what the Response needs to tell who answered. */
export type ComposerResult =
  | {
      kind: 'exchange';
      exchange: Exchange;
      throughProxy: boolean;
      applicationName: string | null;
      /** The body as it was sent, so what a failure names is marked only while the body is still that one. */
      sentBody: string | null;
      /** The remote target it went to (null: this engine), to name what was not reached. */
      remote: RemoteTarget | null;
    }
  /** The engine itself could not be asked (a stopped `serve`, a lost connection). */
  | { kind: 'no-engine'; tried: string; detail: string };

export const EMPTY_DRAFT: ComposerDraft = {
  kind: 'proxy',
  method: 'POST',
  target: '',
  headers: [],
  service: { transaction: '', trace: '', keepAlive: '', connection: '' },
  bodyMode: 'json',
  body: '',
};

/** Where a saved request is kept: its collection and name. */
export type SavedPlace = { collection: string; name: string };

/** A request open in its own tab. The tab on show keeps its live state in the fields below; this copy is refreshed when it is left. */
export interface OpenRequest {
  id: string;
  draft: ComposerDraft;
  savedAs: SavedPlace | null;
  /** Its last answer, while the workbench runs (not kept across restarts). */
  result: ComposerResult | null;
}

/** Whether a request is the blank one a new tab holds. */
export const isBlank = (draft: ComposerDraft) => sameRequest(draft, EMPTY_DRAFT);
/** Whether two places name the same saved request (none is the same as nothing). */
export const samePlace = (a: SavedPlace | null, b: SavedPlace | null) => a !== null && b !== null && a.collection === b.collection && a.name === b.name;
const newTab = (): OpenRequest => ({ id: randomId(), draft: EMPTY_DRAFT, savedAs: null, result: null });

/** A closed request, with the place its tab had, for Reopen. */
export interface ClosedRequest {
  tab: OpenRequest;
  at: number;
}
/** How many closed requests Reopen can bring back, the latest first. */
export const REOPENABLE = 20;

interface ComposerState {
  /** Every open request, in tab order; `activeTab` is the one on show. */
  tabs: OpenRequest[];
  activeTab: string;
  draft: ComposerDraft;
  /** The application the request is sent as; null until the user (or the first load) picks one. */
  applicationId: string | null;
  /** A remote target to send to instead of this engine (its id); null: this engine. */
  targetId: string | null;
  /** The id of the request in flight, for Cancel. */
  sending: string | null;
  result: ComposerResult | null;
  /** A sentence about what the workbench just did for the user (created a test card). */
  notice: string | null;
  /** The saved request the draft was opened from or last saved as; Save writes over it. */
  savedAs: { collection: string; name: string } | null;
  /** Why the request cannot be sent as it is (no destination URL, no application). */
  invalid: string | null;
  /** A stretch of the body to show the user; `at` tells one request to show it from the next. */
  pointAt: { from: number; to: number; at: number } | null;
  /** The part of the request on show: body, query, headers or service headers. */
  requestTab: string;
  /** The body's cursor or selection as the editor last had it: where another page's insertion goes. */
  bodySelection: { from: number; to: number } | null;
  edit(patch: Partial<ComposerDraft>): void;
  chooseApplication(id: string): void;
  chooseTarget(id: string | null): void;
  /**
   * Opens a request (a saved one, a replay, an import, the first run's test card): in its own tab when it is already
   * open, in the tab on show when that one is blank, else in a new tab, so no edit is lost.
   */
  load(draft: ComposerDraft, notice: string | null, savedAs?: SavedPlace | null): void;
  /**
   * The requests closed in this run (not kept across restarts), the latest last; blank ones are not kept. Reopen
   * brings them back in turn, each to its place.
   */
  closed: ClosedRequest[];
  openTab(): void;
  showTab(id: string): void;
  /** Shows the tab `step` places along, round from the last to the first. */
  cycleTab(step: 1 | -1): void;
  closeTab(id: string): void;
  reopenTab(): void;
  /** The draft is saved at `place`; as `stored` when the save changed it (its credentials moved into Secrets). */
  saved(place: SavedPlace, stored?: { draft: ComposerDraft; notice: string }): void;
  started(id: string): void;
  finished(result: ComposerResult): void;
  refused(invalid: string): void;
  /** Shows a stretch of the body: its tab opens and the editor selects it. */
  point(from: number, to: number): void;
  showRequestTab(tab: string): void;
  selectBody(from: number, to: number): void;
  /** Puts text in the body at its cursor (over its selection), and shows the body with the cursor after the text. */
  insertIntoBody(text: string): void;
}

/** What the tab on show holds now, as its entry in `tabs`. */
const current = ({ activeTab, draft, savedAs, result }: ComposerState): OpenRequest => ({ id: activeTab, draft, savedAs, result });

/** The state that shows `tab`, with the tab on show written back into the list first (unless it was closed). */
function showing(state: ComposerState, tab: OpenRequest, tabs = state.tabs): Partial<ComposerState> {
  const kept = tabs.map((open) => (open.id === state.activeTab ? current(state) : open));
  return {
    tabs: kept.some((open) => open.id === tab.id) ? kept : [...kept, tab],
    activeTab: tab.id,
    draft: tab.draft,
    savedAs: tab.savedAs,
    result: tab.result,
    notice: null,
    invalid: null,
    pointAt: null,
    bodySelection: null,
  };
}

const FIRST_TAB = newTab();

/** The open requests and their last answers; the requests (never the answers) are kept across restarts. */
export const useComposerStore = create<ComposerState>()(
  persist(
    (set) => ({
      tabs: [FIRST_TAB],
      activeTab: FIRST_TAB.id,
      draft: EMPTY_DRAFT,
      applicationId: null,
      targetId: null,
      sending: null,
      result: null,
      notice: null,
      savedAs: null,
      closed: [],
      invalid: null,
      pointAt: null,
      requestTab: 'body',
      bodySelection: null,
      edit: (patch) => set(({ draft }) => ({ draft: { ...draft, ...patch }, invalid: null })),
      chooseApplication: (applicationId) => set({ applicationId }),
      chooseTarget: (targetId) => set({ targetId }),
      load: (draft, notice, savedAs = null) =>
        set((state) => {
          const open = state.tabs.find((tab) => tab.id !== state.activeTab && samePlace(tab.savedAs, savedAs));
          const reuse = samePlace(state.savedAs, savedAs) || isBlank(state.draft);
          const target = open ?? (reuse ? current(state) : newTab());
          return { ...showing(state, target), draft, notice, savedAs, result: null };
        }),
      // While a request is in flight its answer belongs to the tab on show: the tabs stay as they are until it ends.
      openTab: () => set((state) => (state.sending ? {} : showing(state, newTab()))),
      showTab: (id) =>
        set((state) => {
          const tab = state.tabs.find((open) => open.id === id);
          return tab && id !== state.activeTab && !state.sending ? showing(state, tab) : {};
        }),
      cycleTab: (step) =>
        set((state) => {
          const at = state.tabs.findIndex((tab) => tab.id === state.activeTab);
          const tab = state.tabs[(at + step + state.tabs.length) % state.tabs.length];
          return tab.id !== state.activeTab && !state.sending ? showing(state, tab) : {};
        }),
      closeTab: (id) =>
        set((state) => {
          const at = state.tabs.findIndex((tab) => tab.id === id);
          if (at < 0 || (state.sending && id === state.activeTab)) return {};
          const tabs = state.tabs.filter((tab) => tab.id !== id);
          const leaving = id === state.activeTab ? current(state) : state.tabs[at];
          const closed = isBlank(leaving.draft) && !leaving.savedAs ? state.closed : [...state.closed, { tab: { ...leaving, result: null }, at }].slice(-REOPENABLE);
          if (id !== state.activeTab) return { tabs, closed };
          // The neighbour on the right takes its place, as in a browser (the last tab's, on its left); the last one closed leaves a blank one.
          return { ...showing(state, tabs[Math.min(at, tabs.length - 1)] ?? newTab(), tabs), closed };
        }),
      reopenTab: () =>
        set((state) => {
          const last = state.closed.at(-1);
          if (!last || state.sending) return {};
          const closed = state.closed.slice(0, -1);
          // Its saved request opened again since: that tab is the request now.
          const again = state.tabs.find((tab) => samePlace(tab.savedAs, last.tab.savedAs));
          if (again) return { ...(again.id === state.activeTab ? {} : showing(state, again)), closed };
          const tabs = [...state.tabs];
          tabs.splice(Math.min(last.at, tabs.length), 0, last.tab);
          return { ...showing(state, last.tab, tabs), closed };
        }),
      saved: (savedAs, stored) => set(stored ? { savedAs, draft: stored.draft, notice: stored.notice } : { savedAs }),
      started: (sending) => set({ sending, notice: null, invalid: null }),
      finished: (result) => set({ sending: null, result }),
      refused: (invalid) => set({ invalid }),
      point: (from, to) => set({ pointAt: { from, to, at: Date.now() }, requestTab: 'body' }),
      showRequestTab: (requestTab) => set({ requestTab }),
      selectBody: (from, to) => set({ bodySelection: { from, to } }),
      insertIntoBody: (text) =>
        set(({ draft, bodySelection }) => {
          // Without a cursor seen yet (a reload), at the end; a body shortened since cannot place it past its end.
          const from = Math.min(bodySelection?.from ?? draft.body.length, draft.body.length);
          const to = Math.min(Math.max(bodySelection?.to ?? from, from), draft.body.length);
          const end = from + text.length;
          return {
            draft: { ...draft, body: draft.body.slice(0, from) + text + draft.body.slice(to), bodyMode: draft.bodyMode === 'none' ? 'json' : draft.bodyMode },
            bodySelection: { from: end, to: end },
            pointAt: { from: end, to: end, at: Date.now() },
            requestTab: 'body',
            invalid: null,
          };
        }),
    }),
    {
      name: 'tokenbench.composer',
      storage: lazyStorage(window.localStorage),
      partialize: (state) => ({
        tabs: state.tabs.map((tab) => ({ ...(tab.id === state.activeTab ? current(state) : tab), result: null })),
        activeTab: state.activeTab,
        draft: state.draft,
        applicationId: state.applicationId,
        targetId: state.targetId,
        savedAs: state.savedAs,
      }),
    },
  ),
);
