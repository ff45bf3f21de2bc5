import { useComposerStore } from '../../state/composer-store';
import { useHeaderPrefix } from '../../state/engine-store';
import { wireRequest } from './wire-request';

/** The request as the service will receive it, in one line: what the draft turns into. */
export function WirePreview() {
  const draft = useComposerStore((state) => state.draft);
  const prefix = useHeaderPrefix();
  const wire = wireRequest(draft, prefix);
  if (typeof wire === 'string') return null;
  const proxyUrl = wire.headers.find(([name]) => name === `${prefix}-PROXY-URL`)?.[1];
  return (
    <p className="wire-preview muted">
      Sends <code>{`${wire.method} ${wire.path}`}</code>
      {proxyUrl && (
        <>
          {' '}
          with <code>{`${prefix}-PROXY-URL: ${proxyUrl}`}</code>
        </>
      )}
    </p>
  );
}
