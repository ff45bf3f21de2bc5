import { DESKTOP_BRIDGE_NAME, type DesktopBridge } from '../../../shared/workbench/transport';

/** The desktop app's folder picker, or null in a browser (which offers a path field instead). */
export function desktopBridge(): DesktopBridge | null {
  return (window as unknown as Partial<Record<typeof DESKTOP_BRIDGE_NAME, DesktopBridge>>)[DESKTOP_BRIDGE_NAME] ?? null;
}
