import { ExportSeed, ImportSeed } from './SeedFiles';
import { WipeVault } from './WipeVault';

/** What cannot be undone, or carries the vault out of it: set apart at the end of Settings. */
export function DangerZone() {
  return (
    <section className="panel settings-section danger-zone" aria-labelledby="settings-danger">
      <h2 id="settings-danger">Danger zone</h2>
      <ExportSeed />
      <ImportSeed />
      <WipeVault />
    </section>
  );
}
