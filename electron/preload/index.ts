import { contextBridge, ipcRenderer } from 'electron';
import { BRIDGE_NAME, DESKTOP_BRIDGE_NAME } from '../../shared/workbench/transport';
import { desktopBridge, workbenchBridge } from './bridge';

contextBridge.exposeInMainWorld(BRIDGE_NAME, workbenchBridge(ipcRenderer));
contextBridge.exposeInMainWorld(DESKTOP_BRIDGE_NAME, desktopBridge(ipcRenderer));
