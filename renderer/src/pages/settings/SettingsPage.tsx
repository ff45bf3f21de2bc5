import { ThemeSwitch } from '../../components/ThemeSwitch';
import { useSettings } from '../../state/settings-store';
import { ApplicationsSection } from './ApplicationsSection';
import { DangerZone } from './DangerZone';
import { EndpointSection } from './EndpointSection';
import { HistorySection } from './HistorySection';
import { ProxySection } from './ProxySection';
import { SecretsSection } from './SecretsSection';
import './settings.css';

/** Everything that otherwise takes a management key and curl: addresses, applications and keys, limits, the vault. */
export function SettingsPage() {
  useSettings();
  return (
    <div className="settings">
      <EndpointSection />
      <ApplicationsSection />
      <SecretsSection />
      <ProxySection />
      <HistorySection />
      <section className="panel settings-section" aria-labelledby="settings-appearance">
        <h2 id="settings-appearance">Appearance</h2>
        <ThemeSwitch className="settings-theme" />
      </section>
      <DangerZone />
    </div>
  );
}
