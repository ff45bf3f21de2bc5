import { z } from 'zod';
import { REFERENCE_NAME, referenceParts, referenceTo } from '../../../shared/secrets/references';
import { COMPOSER_METHODS, type SavedRequest } from '../../../shared/workbench/collection-contract';
import { draftOf } from '../../../shared/workbench/request-draft';
import { formEncode } from '../expressions/rendered-value';
import { ApiProblem } from '../server/problem';
import { isReserved } from './request-names';
import { serviceUrl, type ImportContext } from './request-import';

/**
 * A Postman collection (format v2.1, as Postman's Export writes it) and its environment, read as collections of saved
 * requests and an environment. Postman's `{{name}}` variables become `${env:name}`: kept as written they would reach
 * the proxy as expressions. Whatever has no equivalent here (scripts, auth that signs requests, file bodies, dynamic
 * variables) is named in `notCarried`, never dropped unsaid.
 */

/** A Postman key-value pair (a header, a query parameter, a form field, a variable); `value` may be any JSON. */
const pairSchema = z.object({
  key: z.string().nullish(),
  value: z.unknown().optional(),
  disabled: z.boolean().optional(),
  type: z.string().optional(),
  src: z.unknown().optional(),
});
type Pair = z.output<typeof pairSchema>;

const authSchema = z.object({ type: z.string() }).catchall(z.unknown());
type Auth = z.output<typeof authSchema>;

const urlSchema = z.union([
  z.string(),
  z.object({
    raw: z.string().optional(),
    protocol: z.string().optional(),
    host: z.union([z.string(), z.array(z.string())]).optional(),
    port: z.string().optional(),
    path: z.union([z.string(), z.array(z.union([z.string(), z.object({ value: z.string().nullish() })]))]).optional(),
    query: z.array(pairSchema).nullish(),
    variable: z.array(pairSchema).nullish(),
  }),
]);

const bodySchema = z.object({
  mode: z.string().optional(),
  raw: z.string().optional(),
  urlencoded: z.array(pairSchema).optional(),
  formdata: z.array(pairSchema).optional(),
  graphql: z.object({ query: z.string().optional(), variables: z.string().optional() }).optional(),
  options: z.object({ raw: z.object({ language: z.string().optional() }).optional() }).optional(),
  disabled: z.boolean().optional(),
});

const requestSchema = z.union([
  z.string(),
  z.object({
    method: z.string().optional(),
    url: urlSchema.optional(),
    header: z.union([z.array(pairSchema), z.string()]).optional(),
    body: bodySchema.nullish(),
    auth: authSchema.nullish(),
  }),
]);

const eventSchema = z.object({ listen: z.string().optional(), script: z.object({ exec: z.union([z.array(z.string()), z.string()]).optional() }).optional() });

interface Item {
  name?: string;
  request?: z.output<typeof requestSchema>;
  item?: Item[];
  event?: z.output<typeof eventSchema>[];
  auth?: Auth | null;
  response?: unknown[];
}
const itemSchema: z.ZodType<Item> = z.lazy(() =>
  z.object({
    name: z.string().optional(),
    request: requestSchema.optional(),
    item: z.array(itemSchema).optional(),
    event: z.array(eventSchema).optional(),
    auth: authSchema.nullish(),
    response: z.array(z.unknown()).optional(),
  }),
);

const collectionSchema = z.object({
  info: z.object({ name: z.string(), schema: z.string().optional() }),
  item: z.array(itemSchema),
  event: z.array(eventSchema).optional(),
  auth: authSchema.nullish(),
  variable: z.array(pairSchema).optional(),
});

const environmentSchema = z.object({
  name: z.string(),
  values: z.array(z.object({ key: z.string(), value: z.unknown().optional(), type: z.string().optional(), enabled: z.boolean().optional() })),
});

/** An environment read from Postman: each variable's value, and whether Postman kept it as a secret. */
export interface ImportedEnvironment {
  name: string;
  variables: { name: string; value: string; secret: boolean }[];
}

/** What a Postman export becomes: collections of named requests, an environment, and what could not come along. */
export interface PostmanPlan {
  collections: { name: string; requests: { name: string; request: SavedRequest }[] }[];
  environment: ImportedEnvironment | null;
  notCarried: string[];
  notes: string[];
}

/** Postman's variables (and dynamic variables, `{{$guid}}`), as `{{name}}`: no spaces, no pipe (a proxy expression has them). */
const POSTMAN_VARIABLE = /\{\{([^{}\s|]+)\}\}/g;
const HOLDS_POSTMAN_VARIABLE = /\{\{[^{}\s|]+\}\}/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const METHODS: readonly string[] = COMPOSER_METHODS;
/** What no file name may hold anywhere a repository may be checked out (collections/request-names.ts). */
const NOT_IN_A_NAME = /[/\\:*?"<>|\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
const MAX_NAME_BYTES = 200;

const textOf = (value: unknown): string => (value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value));

/** A Postman variable's name as a reference's: what a name may not hold becomes `_`. */
export function variableName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^[^A-Za-z0-9]+/, '').slice(0, 64);
  return REFERENCE_NAME.test(cleaned) ? cleaned : `var_${cleaned}`.slice(0, 64);
}

/** A Postman name as a file's: what no file name may hold becomes `-`, spaces and dots off its ends, kept short. */
function fileName(name: string, fallback: string): string {
  let cleaned = name.replace(NOT_IN_A_NAME, '-').trim().replace(/^\.+/, '').replace(/[. ]+$/, '');
  while (Buffer.byteLength(cleaned) > MAX_NAME_BYTES) cleaned = [...cleaned].slice(0, -1).join('').trimEnd();
  if (cleaned === '') return fallback;
  // A device name on Windows (CON, NUL, COM1…) or the environments' folder: the suffix makes it a name like any other.
  return /^(con|prn|aux|nul|conin\$|conout\$|(com|lpt)[0-9¹²³])( *\..*)?$/i.test(cleaned) || isReserved(cleaned) ? `${cleaned} (Postman)` : cleaned;
}

/** Reads the export's JSON, or says what it is instead. */
function parseJson<T>(text: string, schema: z.ZodType<T>, what: string, expected: string): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ApiProblem(400, `The ${what} is not JSON: ${(error as Error).message.split('\n')[0]}.`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new ApiProblem(400, `This is not ${expected} (${first.path.join('.') || 'the file'}: ${first.message}).`);
  }
  return parsed.data;
}

/** Reads one export against one vault: everything it says is kept in the lists while it is read. */
class PostmanReader {
  readonly notCarried: string[] = [];
  readonly notes: string[] = [];
  /** Postman names that became other variable names, and the dynamic variables met, each said once. */
  private readonly renamed = new Map<string, string>();
  private readonly dynamic = new Set<string>();
  private keptExpressions = 0;

  constructor(
    /** The variables the export defines: a `{{uuid}}` that none of them names is a token id for the proxy. */
    private readonly defined: ReadonlySet<string>,
    private readonly context: ImportContext,
  ) {}

  /** Text with each Postman variable written as a reference: `{{base_url}}` is `${env:base_url}`. */
  rewrite(text: string): string {
    return text.replace(POSTMAN_VARIABLE, (whole, raw: string) => {
      if (UUID.test(raw) && !this.defined.has(raw)) {
        this.keptExpressions++;
        return whole;
      }
      const dynamic = raw.startsWith('$');
      const name = variableName(dynamic ? raw.slice(1) : raw);
      if (dynamic) this.dynamic.add(raw);
      else if (name !== raw) this.renamed.set(raw, name);
      return referenceTo('env', name);
    });
  }

  /** The notes gathered while reading, once each. */
  finish(): void {
    for (const [from, to] of this.renamed) this.notes.push(`The variable “${from}” is \${env:${to}} here: a variable's name holds letters, digits, dots, dashes and underscores.`);
    if (this.dynamic.size > 0) {
      this.notCarried.push(
        `Postman's dynamic variables (${[...this.dynamic].map((name) => `{{${name}}}`).join(', ')}) have no equivalent: the requests refer to ${[...this.dynamic].map((name) => referenceTo('env', variableName(name.slice(1)))).join(', ')} instead, which the environment must set.`,
      );
    }
    if (this.keptExpressions > 0) this.notes.push(`${this.keptExpressions} {{token id}} that no variable names ${this.keptExpressions === 1 ? 'was' : 'were'} kept as written: the proxy detokenizes ${this.keptExpressions === 1 ? 'it' : 'them'}.`);
  }

  /** A form body's field, encoded, its references kept as written for the engine to encode their values. */
  private formPart(text: string): string {
    return referenceParts(this.rewrite(text))
      .map((part) => (typeof part === 'string' ? formEncode(part) : referenceTo(part.kind, part.name)))
      .join('');
  }

  private formBody(pairs: readonly Pair[], where: string): string {
    const sent = pairs.filter((pair) => !pair.disabled && pair.key);
    if (sent.length < pairs.length) this.notes.push(`${where}: form fields switched off in Postman were left out.`);
    return sent.map(({ key, value }) => `${this.formPart(key!)}=${this.formPart(textOf(value))}`).join('&');
  }

  /** The body and its mode; what cannot be carried is listed under `where`. */
  private body(body: z.output<typeof bodySchema> | null | undefined, contentType: string | undefined, where: string): { bodyMode: SavedRequest['bodyMode']; body: string } {
    if (!body || body.disabled || !body.mode) return { bodyMode: 'none', body: '' };
    switch (body.mode) {
      case 'raw': {
        const text = this.rewrite(body.raw ?? '');
        if (text === '') return { bodyMode: 'none', body: '' };
        const language = body.options?.raw?.language ?? '';
        const bodyMode = language === 'json' || /json/i.test(contentType ?? '') ? 'json' : language === 'xml' || /xml/i.test(contentType ?? '') ? 'xml' : 'text';
        return { bodyMode, body: text };
      }
      case 'urlencoded':
        return { bodyMode: 'form', body: this.formBody(body.urlencoded ?? [], where) };
      case 'formdata': {
        const fields = body.formdata ?? [];
        const files = fields.filter((field) => field.type === 'file');
        if (files.length > 0) this.notCarried.push(`${where}: the file${files.length === 1 ? '' : 's'} of its form (${files.map((f) => f.key).join(', ')}): the Composer sends no multipart body.`);
        const text = fields.filter((field) => field.type !== 'file');
        if (text.length > 0) this.notes.push(`${where}: its multipart form is sent as a URL-encoded form.`);
        return { bodyMode: 'form', body: this.formBody(text, where) };
      }
      case 'graphql': {
        let variables: unknown = {};
        try {
          variables = JSON.parse(body.graphql?.variables || '{}');
        } catch {
          this.notes.push(`${where}: its GraphQL variables are not JSON, so they were left out.`);
        }
        this.notes.push(`${where}: its GraphQL query is sent as a JSON body ({"query", "variables"}).`);
        return { bodyMode: 'json', body: this.rewrite(JSON.stringify({ query: body.graphql?.query ?? '', variables }, null, 2)) };
      }
      default:
        this.notCarried.push(`${where}: its ${body.mode === 'file' ? 'body is a file' : `body (${body.mode})`}: paste its content into the body.`);
        return { bodyMode: 'none', body: '' };
    }
  }

  /** An auth block as the header it sends; null for none, or one that cannot be carried (listed). */
  private authHeader(auth: Auth | null, where: string): [string, string] | 'query' | null {
    if (!auth || auth.type === 'noauth') return null;
    const attributes = Array.isArray(auth[auth.type]) ? (auth[auth.type] as Pair[]) : [];
    const attribute = (key: string) => textOf(attributes.find((pair) => pair.key === key)?.value);
    switch (auth.type) {
      case 'bearer':
        return ['Authorization', `Bearer ${this.rewrite(attribute('token'))}`];
      case 'basic': {
        const user = attribute('username');
        const password = attribute('password');
        if (HOLDS_POSTMAN_VARIABLE.test(user + password)) {
          this.notCarried.push(`${where}: its Basic auth, made of variables, which are put in only as a request leaves: write the Authorization header with a secret.`);
          return null;
        }
        return ['Authorization', `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`];
      }
      case 'apikey': {
        if (attribute('in') === 'query') return 'query';
        return [attribute('key') || 'X-API-Key', this.rewrite(attribute('value'))];
      }
      case 'oauth2': {
        const token = attribute('accessToken');
        if (token) return ['Authorization', `${attribute('headerPrefix') || 'Bearer'} ${this.rewrite(token)}`];
        this.notCarried.push(`${where}: its OAuth 2.0 auth holds no access token: get one, and write the Authorization header with a secret.`);
        return null;
      }
      default:
        this.notCarried.push(`${where}: its ${auth.type} auth, which signs each request: Tokenbench has no equivalent.`);
        return null;
    }
  }

  /** The URL as one string, its path variables (`:id`) put in. */
  private url(url: z.output<typeof urlSchema> | undefined, where: string): string {
    if (url === undefined) return '';
    if (typeof url === 'string') return url;
    let raw = url.raw;
    if (raw === undefined) {
      const host = Array.isArray(url.host) ? url.host.join('.') : (url.host ?? '');
      const path = Array.isArray(url.path) ? url.path.map((part) => (typeof part === 'string' ? part : (part.value ?? ''))).join('/') : (url.path ?? '');
      const query = (url.query ?? []).filter((pair) => !pair.disabled && pair.key).map((pair) => `${pair.key}=${textOf(pair.value)}`);
      raw = `${url.protocol ? `${url.protocol}://` : ''}${host}${url.port ? `:${url.port}` : ''}${path ? `/${path}` : ''}${query.length > 0 ? `?${query.join('&')}` : ''}`;
    }
    for (const variable of url.variable ?? []) {
      if (!variable.key) continue;
      const value = textOf(variable.value);
      raw = raw.replace(new RegExp(`/:${variable.key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=[/?#]|$)`, 'g'), `/${value === '' ? `{{${variable.key}}}` : value}`);
      if (value === '') this.notes.push(`${where}: its path variable :${variable.key} has no value: the request refers to \${env:${variableName(variable.key)}}.`);
    }
    return raw;
  }

  /** One Postman request as the Composer's. */
  request(item: Item, auth: Auth | null, where: string): SavedRequest {
    const source = typeof item.request === 'string' ? { url: item.request } : (item.request ?? {});
    for (const event of item.event ?? []) this.script(event, where);
    const method = (source.method ?? 'GET').toUpperCase();
    if (!METHODS.includes(method)) this.notCarried.push(`${where}: its method ${method}, which the Composer does not send: it is GET here.`);
    const headers = typeof source.header === 'string' ? this.headerLines(source.header) : (source.header ?? []);
    const rows = headers.filter((pair) => pair.key).map((pair) => ({ name: pair.key!, value: this.rewrite(textOf(pair.value)), enabled: !pair.disabled }));
    const contentType = rows.find((row) => row.enabled && row.name.toLowerCase() === 'content-type')?.value;
    const { bodyMode, body } = this.body(source.body, contentType, where);
    let url = this.rewrite(this.url(source.url, where)).trim();
    const header = this.authHeader(source.auth === undefined ? auth : source.auth, where);
    if (header === 'query') {
      this.notCarried.push(`${where}: its API key sent in the query, which the saved file would hold: send it in a header, as a secret.`);
    } else if (header && !rows.some((row) => row.name.toLowerCase() === header[0].toLowerCase())) {
      rows.push({ name: header[0], value: header[1], enabled: true });
    }
    // A scheme other than http(s) (file:, gopher:, javascript:, data:…) is refused, as the cURL import refuses it; a
    // colon before digits is a port (`localhost:3000`), which Postman sends as http.
    const scheme = url.match(/^([a-z][a-z0-9+.-]*):(?!\d)/i)?.[1].toLowerCase();
    if (scheme !== undefined && scheme !== 'http' && scheme !== 'https') {
      throw new ApiProblem(400, `${where}: a ${scheme}: address cannot be imported: the Composer sends http and https requests only. Nothing was imported.`);
    }
    if (url !== '' && scheme === undefined && !url.startsWith('${')) {
      url = `http://${url}`;
      this.notes.push(`${where}: its URL names no scheme: it is http://, as Postman sends it.`);
    }
    const draft = { kind: 'proxy' as const, method: (METHODS.includes(method) ? method : 'GET') as SavedRequest['method'], target: url, headers: rows, service: { transaction: '', trace: '', keepAlive: '', connection: '' }, bodyMode, body };
    return this.toService(draft);
  }

  /** A request to the hosted service (or this engine) is a vault API call, or a proxied one at /proxy, as the Composer composes it. */
  private toService(draft: SavedRequest): SavedRequest {
    const url = serviceUrl(draft.target, this.context);
    if (!url) return draft;
    const proxied = /^\/proxy(\/|$)/.test(url.pathname);
    const sent = { method: draft.method, path: url.pathname + url.search, headers: draft.headers.filter((row) => row.enabled).map((row): [string, string] => [row.name, row.value]), body: draft.body };
    const { draft: composed, notes } = draftOf(sent, proxied ? 'proxy' : 'api', this.context.headerPrefix);
    this.notes.push(...notes.map((note) => `${draft.method} ${draft.target}: ${note}`));
    return { ...composed, headers: [...composed.headers, ...draft.headers.filter((row) => !row.enabled)], bodyMode: draft.bodyMode, body: draft.body };
  }

  /** Headers written as Postman's older text form: `Name: value` a line. */
  private headerLines(text: string): Pair[] {
    return text
      .split('\n')
      .map((line) => line.match(/^\s*(\/\/)?\s*([^:]+):\s?(.*)$/))
      .filter((match) => match !== null)
      .map((match) => ({ key: match[2].trim(), value: match[3], disabled: match[1] !== undefined }));
  }

  /** A script: listed as not carried when it holds any code. */
  script(event: z.output<typeof eventSchema>, where: string): void {
    const exec = event.script?.exec;
    const code = Array.isArray(exec) ? exec.join('\n') : (exec ?? '');
    if (code.trim() === '') return;
    const kind = event.listen === 'prerequest' ? 'pre-request script' : event.listen === 'test' ? 'test script' : `${event.listen ?? ''} script`;
    this.notCarried.push(`${where}: its ${kind}: Tokenbench runs no scripts.`);
  }
}

/**
 * Reads a Postman export: a collection (v2.1), an environment, or both. Folders become collections named after the
 * collection and the folders above them, joined by " - " (a name cannot hold "/", which would be another folder on
 * disk); a collection's variables join the environment (the environment's own win, as in Postman), or become one
 * named after the collection when none was given.
 */
export function readPostman(collectionText: string | null, environmentText: string | null, context: ImportContext): PostmanPlan {
  if (collectionText === null && environmentText === null) throw new ApiProblem(400, 'Give a Postman collection, an environment, or both.');
  const collection = collectionText === null ? null : parseJson(collectionText, collectionSchema, 'collection', 'a Postman collection: export it from Postman as Collection v2.1');
  if (collection?.info.schema && !collection.info.schema.includes('v2.1')) {
    throw new ApiProblem(400, `This collection is in another Postman format (${collection.info.schema}): export it again as Collection v2.1.`);
  }
  const environment = environmentText === null ? null : parseJson(environmentText, environmentSchema, 'environment', 'a Postman environment: export it from Postman’s Environments');
  const defined = new Set([...(collection?.variable ?? []).map((v) => v.key ?? ''), ...(environment?.values ?? []).map((v) => v.key)]);
  const reader = new PostmanReader(defined, context);
  const collections = new Map<string, { name: string; request: SavedRequest }[]>();

  const walk = (items: readonly Item[], path: string[], auth: Auth | null) => {
    for (const item of items) {
      const name = fileName(item.name ?? '', 'Request');
      if (item.item) {
        const folderAuth = item.auth === undefined ? auth : item.auth;
        for (const event of item.event ?? []) reader.script(event, `The folder “${item.name}”`);
        walk(item.item, [...path, name], folderAuth);
        continue;
      }
      const collectionName = fileName(path.join(' - '), 'Postman');
      const where = `“${item.name ?? name}” (${collectionName})`;
      const requests = collections.get(collectionName) ?? [];
      let unique = name;
      for (let n = 2; requests.some((request) => request.name === unique); n++) unique = `${name} (${n})`;
      if (unique !== name) reader.notes.push(`${where}: a request of that name came before it, so it is “${unique}”.`);
      requests.push({ name: unique, request: reader.request(item, auth, where) });
      collections.set(collectionName, requests);
      if (item.response?.length) reader.notes.push(`${where}: its saved example responses were left out.`);
    }
  };
  if (collection) {
    for (const event of collection.event ?? []) reader.script(event, `The collection “${collection.info.name}”`);
    walk(collection.item, [fileName(collection.info.name, 'Postman')], collection.auth ?? null);
  }

  const variables = new Map<string, { name: string; value: string; secret: boolean }>();
  const add = (key: string, value: unknown, secret: boolean, from: string) => {
    const name = variableName(key);
    const text = textOf(value);
    if (HOLDS_POSTMAN_VARIABLE.test(text)) {
      reader.notCarried.push(`The variable “${key}” (${from}) refers to another variable, which is not put in inside a value here: write its value out.`);
    }
    variables.set(name, { name, value: reader.rewrite(text), secret });
  };
  for (const pair of collection?.variable ?? []) if (pair.key) add(pair.key, pair.value, false, 'the collection');
  for (const value of environment?.values ?? []) {
    if (value.enabled === false) {
      reader.notes.push(`The variable “${value.key}” is switched off in the environment, so it was left out.`);
      continue;
    }
    add(value.key, value.value, value.type === 'secret', 'the environment');
  }
  reader.finish();
  const environmentName = environment ? fileName(environment.name, 'Postman') : collection && variables.size > 0 ? fileName(collection.info.name, 'Postman') : null;
  if (!environment && environmentName) reader.notes.push(`The collection's variables make the environment “${environmentName}”.`);
  return {
    collections: [...collections].map(([name, requests]) => ({ name, requests })),
    environment: environmentName === null ? null : { name: environmentName, variables: [...variables.values()] },
    notCarried: reader.notCarried,
    notes: reader.notes,
  };
}
