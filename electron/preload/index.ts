import { contextBridge, ipcRenderer } from 'electron';
import { BRIDGE_NAME } from '../../shared/workbench/transport';
import { workbenchBridge } from './bridge';

contextBridge.exposeInMainWorld(BRIDGE_NAME, workbenchBridge(ipcRenderer));
