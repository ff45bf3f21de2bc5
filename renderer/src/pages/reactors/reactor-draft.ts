import type { ReactorDefinitionInput, ReactorView } from '../../../../shared/workbench/reactor-contract';
import type { HeaderRow } from '../../state/composer-store';
import { configurationOf, configurationRows, runtimeDraft, runtimeOf, type RuntimeDraft, type RuntimeImage } from '../proxies/proxy-draft';

/** A reactor as its fields are typed: text as written, so a half-typed number is not refused while typing. */
export interface ReactorDraft extends RuntimeDraft {
  name: string;
  code: string;
  /** '' for none. */
  application_id: string;
  configuration: HeaderRow[];
  /** node22 only: react-async may then run up to 900 s. */
  async: boolean;
  /** node22 only: the permissions of the code's own key, as typed (separated by commas or spaces). */
  permissions: string;
}

/** The function shapes a reactor starts from, by runtime (docs/api.md, Reactors). */
export const REACTOR_TEMPLATES: Record<RuntimeImage, string> = {
  'node-bt': `module.exports = async function (req) {
  const { args, configuration } = req;
  // req.bt: a client of this engine as the reactor's application, when it has one.
  console.log('reacting to', Object.keys(args ?? {}).join(', '));
  return { raw: args };
};
`,
  node22: `module.exports = async function (event) {
  const { req, configuration, logger } = event;
  logger.info('reacting to', Object.keys(req.args ?? {}).join(', '));
  return { res: { statusCode: 200, headers: { 'content-type': 'application/json' }, body: { raw: req.args } } };
};
`,
};

/** A reactor as the editor starts from it: a saved one, or a new one with the node-bt template. */
export function draftOf(reactor: ReactorView | null): ReactorDraft {
  return {
    name: reactor?.name ?? '',
    code: reactor?.code ?? REACTOR_TEMPLATES['node-bt'],
    application_id: reactor?.application_id ?? '',
    configuration: configurationRows(reactor?.configuration),
    ...runtimeDraft(reactor?.runtime),
    async: reactor?.runtime?.async ?? false,
    permissions: (reactor?.runtime?.permissions ?? []).join(', '),
  };
}

/** The definition to save, or the refusals the page found before asking the engine, by the engine's field paths. */
export function definitionOf(draft: ReactorDraft): { definition: ReactorDefinitionInput } | { problems: Record<string, string[]> } {
  const problems: Record<string, string[]> = {};
  const configuration = configurationOf(draft.configuration, problems);
  const base = runtimeOf(draft, 'runtime', problems);
  const permissions = draft.permissions.split(/[\s,]+/).filter((p) => p !== '');
  // node-bt with nothing set is saved as no runtime at all, as a client that never names one saves it.
  const runtime = base.image === 'node22' ? { ...base, ...(draft.async && { async: true }), ...(permissions.length > 0 && { permissions }) } : null;
  const definition: ReactorDefinitionInput = {
    name: draft.name,
    code: draft.code,
    configuration,
    application_id: draft.application_id === '' ? null : draft.application_id,
    runtime,
  };
  return Object.keys(problems).length > 0 ? { problems } : { definition };
}

export const sameDraft = (a: ReactorDraft, b: ReactorDraft) => JSON.stringify(a) === JSON.stringify(b);

/** The Reactors page's drafts, as its form turns them into definitions and back. */
export const REACTOR_DRAFTS = { of: draftOf, same: sameDraft, definition: definitionOf };
