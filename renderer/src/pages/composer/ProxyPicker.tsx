import { useComposerStore } from '../../state/composer-store';
import { useProxyChoicesStore } from '../../state/proxy-choices-store';

/**
 * Which proxy a proxied request goes through: the ephemeral one, to the destination URL written beside it, or a
 * pre-configured one chosen by name, whose destination is its own (the path beside it follows /proxy). The engine adds
 * the chosen proxy's key as the request leaves.
 */
export function ProxyPicker() {
  const proxies = useProxyChoicesStore((state) => state.value);
  const chosen = useComposerStore((state) => state.draft.proxy);
  const edit = useComposerStore((state) => state.edit);
  const known = proxies?.find((proxy) => proxy.name === chosen);
  // Said on hover: the option's own name stays short enough for the narrowest request line.
  const destination = chosen === undefined ? 'the destination URL written beside it' : known?.destination_url;
  return (
    <select
      aria-label="Through proxy"
      className="proxy-picker"
      value={chosen ?? ''}
      title={destination && `Sends to ${destination}`}
      // The target is a destination URL for one and a path for the other: it starts again.
      onChange={(event) => edit({ proxy: event.target.value || undefined, target: '' })}
    >
      <option value="">Ephemeral proxy</option>
      {proxies?.map((proxy) => (
        <option key={proxy.id} value={proxy.name}>
          {proxy.name}
        </option>
      ))}
      {chosen !== undefined && !known && <option value={chosen}>{chosen} (not found)</option>}
    </select>
  );
}
