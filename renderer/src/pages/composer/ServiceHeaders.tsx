import { useComposerStore, type ServiceHeader } from '../../state/composer-store';
import { useHeaderPrefix } from '../../state/engine-store';
import { SERVICE_HEADERS } from './wire-request';

/** The service's own headers as named fields; those only the proxy reads shown only for a proxied request. */
export function ServiceHeaders() {
  const service = useComposerStore((state) => state.draft.service);
  const kind = useComposerStore((state) => state.draft.kind);
  const edit = useComposerStore((state) => state.edit);
  const prefix = useHeaderPrefix();
  const fields = (Object.keys(SERVICE_HEADERS) as ServiceHeader[]).filter(
    (field) => kind === 'proxy' || (field !== 'keepAlive' && field !== 'connection'),
  );
  return (
    <div className="service-headers">
      {fields.map((field) => {
        const { suffix, label, meaning } = SERVICE_HEADERS[field];
        return (
          <label key={field}>
            <span>
              {label} <code>{`${prefix}-${suffix}`}</code>
            </span>
            <input type="text" spellCheck={false} value={service[field]} onChange={(e) => edit({ service: { ...service, [field]: e.target.value } })} />
            <small className="muted">{meaning}</small>
          </label>
        );
      })}
    </div>
  );
}
