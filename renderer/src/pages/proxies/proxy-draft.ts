import type { ProxyDefinitionInput, RuntimeOptionsView, ProxyTransformView, ProxyView, TransformType } from '../../../../shared/workbench/proxy-contract';
import type { HeaderRow } from '../../state/composer-store';

export type Side = 'request' | 'response';
export type RuntimeImage = 'node-bt' | 'node22';

/** Code's runtime options as the form types them: text as typed, so a half-typed number is not refused while typing. */
export interface RuntimeDraft {
  image: RuntimeImage;
  /** node22's seconds, as typed; empty: the runtime's default. */
  timeout: string;
  resources: string;
}

/** One transform as its fields are typed: text as written, so a half-typed number or JSON is not refused while typing. */
export interface TransformDraft extends RuntimeDraft {
  /** Stays with the transform while it moves in its list. */
  key: string;
  type: TransformType;
  code: string;
  matcher: 'regex' | 'chase_stratus_pan';
  expression: string;
  replacement: string;
  /** A tokenize transform's create-token request, as JSON text. */
  token: string;
  identifier: string;
  value: string;
  location: string;
}

export interface ProxyDraft {
  name: string;
  destination_url: string;
  require_auth: boolean;
  disable_detokenization: boolean;
  /** '' for none. */
  application_id: string;
  configuration: HeaderRow[];
  request: TransformDraft[];
  response: TransformDraft[];
}

/** Where the engine names a field (`request_transforms[0].code`): the page places each refusal at the field it names. */
export const transformPath = (side: Side, index: number, field: string) => `${side}_transforms[${index}].${field}`;

/** The function shapes a code transform starts from, by runtime and side (docs/api.md, Code runtime). */
export const CODE_TEMPLATES: Record<RuntimeImage, Record<Side, string>> = {
  'node-bt': {
    request: `module.exports = async function (req) {
  const { body, headers, method, path } = req.args;
  // req.configuration: the proxy's configuration; req.bt: a client of this engine.
  console.log('request', method, path);
  return { body, headers };
};
`,
    response: `module.exports = async function (req) {
  const { body, headers } = req.args;
  console.log('response', Object.keys(headers).length, 'headers');
  return { body, headers };
};
`,
  },
  node22: {
    request: `module.exports = async function (event) {
  const { req, configuration, logger } = event;
  logger.info('request', req.method);
  return { req: { body: req.body, headers: req.headers } };
};
`,
    response: `module.exports = async function (event) {
  const { res, logger } = event;
  logger.info('response', res.statusCode);
  return { res: { statusCode: res.statusCode, headers: res.headers, body: res.body } };
};
`,
  },
};

const TOKEN_TEMPLATE = `{
  "type": "card_number",
  "data": "{{ req.number }}"
}`;

let made = 0;
const newKey = () => `transform-${++made}`;

/** A new transform of a type, with what it needs to be saved filled in where there is a usual choice. */
export function newTransform(type: TransformType, side: Side): TransformDraft {
  return {
    key: newKey(),
    type,
    code: type === 'code' ? CODE_TEMPLATES['node-bt'][side] : '',
    image: 'node-bt',
    timeout: '',
    resources: '',
    matcher: 'chase_stratus_pan',
    expression: '',
    replacement: type === 'mask' ? 'X' : '',
    token: type === 'tokenize' ? TOKEN_TEMPLATE : '',
    identifier: '',
    value: '',
    location: '',
  };
}

/** Runtime options as the form types them, from a saved runtime (none: node-bt). */
export const runtimeDraft = (runtime: RuntimeOptionsView | null | undefined): RuntimeDraft => ({
  image: runtime?.image ?? 'node-bt',
  timeout: runtime?.timeout === undefined ? '' : String(runtime.timeout),
  resources: runtime?.resources ?? '',
});

function transformDraft(transform: ProxyTransformView, side: Side): TransformDraft {
  const options = transform.options ?? {};
  const runtime = options.runtime;
  return {
    ...newTransform(transform.type, side),
    code: transform.code ?? '',
    ...runtimeDraft(runtime),
    matcher: transform.matcher ?? 'chase_stratus_pan',
    expression: transform.expression ?? '',
    replacement: transform.replacement ?? '',
    token: options.token === undefined ? '' : JSON.stringify(options.token, null, 2),
    identifier: options.identifier ?? '',
    value: options.value ?? '',
    location: options.location ?? '',
  };
}

/** A proxy as the editor starts from it: a saved one, or a new one with nothing but a require_auth default. */
export function draftOf(proxy: ProxyView | null): ProxyDraft {
  return {
    name: proxy?.name ?? '',
    destination_url: proxy?.destination_url ?? '',
    require_auth: proxy?.require_auth ?? true,
    disable_detokenization: proxy?.disable_detokenization ?? false,
    application_id: proxy?.application_id ?? '',
    configuration: configurationRows(proxy?.configuration),
    request: (proxy?.request_transforms ?? []).map((t) => transformDraft(t, 'request')),
    response: (proxy?.response_transforms ?? []).map((t) => transformDraft(t, 'response')),
  };
}

const given = (text: string) => (text === '' ? undefined : text);

/** A configuration as the form's rows. */
export const configurationRows = (configuration: Record<string, string> | undefined): HeaderRow[] =>
  Object.entries(configuration ?? {}).map(([name, value]) => ({ name, value, enabled: true }));

/** The configuration the rows name (empty names left out), or the refusal of a name given twice. */
export function configurationOf(rows: readonly HeaderRow[], problems: Record<string, string[]>): Record<string, string> {
  const configuration: Record<string, string> = {};
  for (const row of rows) {
    if (row.name === '') continue;
    if (Object.hasOwn(configuration, row.name)) problems.configuration = [`configuration names ${row.name} twice: keep one`];
    configuration[row.name] = row.value;
  }
  return configuration;
}

/** The runtime object of typed options (node22's only with node22), or the refusal of a timeout that is no number. */
export function runtimeOf(draft: RuntimeDraft, path: string, problems: Record<string, string[]>) {
  const timeout = draft.timeout.trim() === '' ? undefined : Number(draft.timeout);
  if (timeout !== undefined && !Number.isInteger(timeout)) problems[`${path}.timeout`] = ['timeout must be a whole number of seconds'];
  return draft.image === 'node22' ? { image: draft.image, timeout, resources: given(draft.resources) } : { image: draft.image };
}

/** A transform as the engine takes it, or the refusal of a field the page can judge itself (JSON that does not parse). */
function transformOf(draft: TransformDraft, side: Side, index: number, problems: Record<string, string[]>): ProxyTransformView {
  switch (draft.type) {
    case 'code':
      return { type: 'code', code: draft.code, options: { runtime: runtimeOf(draft, transformPath(side, index, 'options.runtime'), problems) } };
    case 'tokenize': {
      let token: Record<string, unknown> | undefined;
      try {
        token = JSON.parse(draft.token) as Record<string, unknown>;
      } catch (error) {
        problems[transformPath(side, index, 'options.token')] = [`The token request is not JSON: ${(error as Error).message}`];
      }
      return { type: 'tokenize', options: { token, identifier: given(draft.identifier) } };
    }
    case 'mask':
      return { type: 'mask', matcher: draft.matcher, expression: draft.matcher === 'regex' ? draft.expression : undefined, replacement: draft.replacement };
    case 'append_json':
    case 'append_header':
      return { type: draft.type, options: { location: draft.location, value: draft.value } };
    case 'append_text':
      return { type: 'append_text', options: { value: draft.value } };
  }
}

/** The definition to save, or the refusals the page found before asking the engine, by the engine's field paths. */
export function definitionOf(draft: ProxyDraft): { definition: ProxyDefinitionInput } | { problems: Record<string, string[]> } {
  const problems: Record<string, string[]> = {};
  const configuration = configurationOf(draft.configuration, problems);
  const definition: ProxyDefinitionInput = {
    name: draft.name,
    destination_url: draft.destination_url,
    require_auth: draft.require_auth,
    disable_detokenization: draft.disable_detokenization,
    application_id: draft.application_id === '' ? null : draft.application_id,
    configuration,
    request_transforms: draft.request.map((t, i) => transformOf(t, 'request', i, problems)),
    response_transforms: draft.response.map((t, i) => transformOf(t, 'response', i, problems)),
  };
  return Object.keys(problems).length > 0 ? { problems } : { definition };
}

/** Whether two drafts say the same, whatever keys their transforms carry for the page. */
export function sameDraft(a: ProxyDraft, b: ProxyDraft): boolean {
  const plain = (draft: ProxyDraft) => JSON.stringify({ ...draft, request: draft.request.map(({ key: _key, ...t }) => t), response: draft.response.map(({ key: _key, ...t }) => t) });
  return plain(a) === plain(b);
}

/** The Proxies page's drafts, as its form turns them into definitions and back. */
export const PROXY_DRAFTS = { of: draftOf, same: sameDraft, definition: definitionOf };
