import { useComposerStore } from '../../state/composer-store';
import { useHeaderPrefix } from '../../state/engine-store';
import { useProxyChoicesStore } from '../../state/proxy-choices-store';
import { wireRequest } from './wire-request';

/** The request as the service will receive it, in one line: what the draft turns into. */
export function WirePreview() {
  const draft = useComposerStore((state) => state.draft);
  const prefix = useHeaderPrefix();
  const proxies = useProxyChoicesStore((state) => state.value);
  const wire = wireRequest(draft, prefix);
  if (typeof wire === 'string') return null;
  const proxyUrl = wire.headers.find(([name]) => name === `${prefix}-PROXY-URL`)?.[1];
  const preconfigured = draft.kind === 'proxy' && draft.proxy !== undefined ? proxies?.find((proxy) => proxy.name === draft.proxy) : undefined;
  return (
    <p className="wire-preview muted">
      Sends <code>{`${wire.method} ${wire.path}`}</code>
      {proxyUrl && (
        <>
          {' '}
          with <code>{`${prefix}-PROXY-URL: ${proxyUrl}`}</code>
        </>
      )}
      {preconfigured && (
        <>
          {' '}
          with <code>{`${prefix}-PROXY-KEY`}</code> of “{preconfigured.name}” (added by the engine), to <code>{preconfigured.destination_url}</code>
        </>
      )}
    </p>
  );
}
