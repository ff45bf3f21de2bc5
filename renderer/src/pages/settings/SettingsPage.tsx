import { useEffect } from 'react';
import { ThemeSwitch } from '../../components/ThemeSwitch';
import { usePageQuery } from '../../state/route';
import { useSettingsStore } from '../../state/settings-store';
import { ApplicationsSection } from './ApplicationsSection';
import { ClientKeysSection } from './ClientKeysSection';
import { CollectionsFolderSection } from './CollectionsFolderSection';
import { ProxiesFolderSection } from './ProxiesFolderSection';
import { DangerZone } from './DangerZone';
import { EndpointSection } from './EndpointSection';
import { EnvironmentsSection } from './EnvironmentsSection';
import { HistorySection } from './HistorySection';
import { PeopleSection } from './PeopleSection';
import { ProxySection } from './ProxySection';
import { SecretsSection } from './SecretsSection';
import { SessionsSection } from './SessionsSection';
import { TokenIntentsSection } from './TokenIntentsSection';
import { TenantSection } from './TenantSection';
import './settings.css';

/** Everything that otherwise takes a management key and curl: addresses, applications and keys, limits, the vault. */
export function SettingsPage() {
  useSettingsStore.useRefreshed();
  useSectionInAddress();
  return (
    <div className="settings">
      <EndpointSection />
      <ApplicationsSection />
      <ClientKeysSection />
      <SessionsSection />
      <PeopleSection />
      <SecretsSection />
      <EnvironmentsSection />
      <CollectionsFolderSection />
      <ProxiesFolderSection />
      <ProxySection />
      <HistorySection />
      <TokenIntentsSection />
      <TenantSection />
      <section className="panel settings-section" aria-labelledby="settings-appearance">
        <h2 id="settings-appearance">Appearance</h2>
        <ThemeSwitch className="settings-theme" />
      </section>
      <DangerZone />
    </div>
  );
}

/** `#/settings?section=environments` (the Composer's way here) shows that section and puts the focus on its heading. */
function useSectionInAddress(): void {
  const section = usePageQuery().get('section');
  useEffect(() => {
    const heading = section ? document.getElementById(`settings-${section}`) : null;
    if (!heading) return;
    heading.tabIndex = -1;
    heading.scrollIntoView({ block: 'start' });
    heading.focus();
  }, [section]);
}
