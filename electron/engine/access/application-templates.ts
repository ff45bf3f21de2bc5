import type { AccessRule, ApplicationType, Permission } from './permissions';

/**
 * The application templates `GET /application-templates` lists (vendor-surfaces.md §6.3): a fixed catalogue with
 * fixed ids, so that code which names a template finds it on every vault. Each one's rules and permissions are
 * what `POST /applications` takes for its type (tested).
 */
export interface ApplicationTemplate {
  id: string;
  name: string;
  description: string;
  application_type: ApplicationType;
  template_type: 'starters' | 'payments' | 'banking' | 'pii' | 'management';
  is_starter: boolean;
  rules: AccessRule[];
  permissions: Permission[];
}

const rule = (description: string, container: string, transform: AccessRule['transform'], permissions: Permission[]): AccessRule => ({
  description,
  priority: 1,
  container,
  transform,
  permissions,
});

const READ_WRITE: Permission[] = ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search'];

export const APPLICATION_TEMPLATES: readonly ApplicationTemplate[] = [
  {
    id: 'bad2d69a-d4ea-4307-87f9-3a9b5039ff00',
    name: 'Collect cards',
    description: 'A browser or mobile app that creates card tokens and never reads them back.',
    application_type: 'public',
    template_type: 'starters',
    is_starter: true,
    rules: [rule('Create card tokens', '/pci/', 'mask', ['token:create'])],
    permissions: [],
  },
  {
    id: 'cc460dd4-9f59-4554-ab87-ef38dcb89aa4',
    name: 'Backend – full card access',
    description: 'A back end that manages card tokens, reads them masked and sends them through the proxy and reactors.',
    application_type: 'private',
    template_type: 'payments',
    is_starter: true,
    rules: [
      rule('Manage card tokens, masked', '/pci/', 'mask', READ_WRITE),
      { ...rule('Use card tokens in the proxy and reactors', '/pci/', 'reveal', ['token:use', 'proxy:invoke', 'reactor:invoke']), priority: 2 },
    ],
    permissions: [],
  },
  {
    id: '4f49c56d-147b-433e-8e11-cd14e2669486',
    name: 'Collect bank accounts',
    description: 'A browser or mobile app that creates bank account tokens and never reads them back.',
    application_type: 'public',
    template_type: 'banking',
    is_starter: false,
    rules: [rule('Create bank tokens', '/bank/', 'mask', ['token:create'])],
    permissions: [],
  },
  {
    id: '48b5675b-e0d6-4b02-821b-326bccb391e5',
    name: 'Backend – bank accounts',
    description: 'A back end that manages bank account tokens, reads them masked and sends them through the proxy.',
    application_type: 'private',
    template_type: 'banking',
    is_starter: false,
    rules: [
      rule('Manage bank tokens, masked', '/bank/', 'mask', READ_WRITE),
      { ...rule('Use bank tokens in the proxy', '/bank/', 'reveal', ['token:use', 'proxy:invoke']), priority: 2 },
    ],
    permissions: [],
  },
  {
    id: 'f8cac70a-f487-4fca-a32e-207506cd6733',
    name: 'Backend – personal data',
    description: 'A back end that keeps personal data (SSNs, employer ids) as tokens and reads it in the clear.',
    application_type: 'private',
    template_type: 'pii',
    is_starter: false,
    rules: [rule('Manage and read personal data', '/pii/', 'reveal', READ_WRITE)],
    permissions: [],
  },
  {
    id: 'fe5cca28-099c-4137-ae71-2425963ed1e8',
    name: 'Management – proxies and reactors',
    description: 'A deployment pipeline that creates, changes and deletes pre-configured proxies and reactors.',
    application_type: 'management',
    template_type: 'management',
    is_starter: false,
    rules: [],
    permissions: ['proxy:create', 'proxy:read', 'proxy:update', 'proxy:delete', 'reactor:create', 'reactor:read', 'reactor:update', 'reactor:delete'],
  },
  {
    id: '8778a898-644f-433b-8084-d55557d79e01',
    name: 'Management – applications and logs',
    description: 'An administrator’s tool that manages applications and their keys and reads the logs.',
    application_type: 'management',
    template_type: 'management',
    is_starter: false,
    rules: [],
    permissions: ['application:create', 'application:read', 'application:update', 'application:delete', 'log:read'],
  },
];

/** The tenant member roles `GET /roles` lists, named as the vendor's member and invitation docs name them. */
export const ROLES = [{ name: 'OWNER' }, { name: 'ADMIN' }, { name: 'READ_ONLY' }] as const;
