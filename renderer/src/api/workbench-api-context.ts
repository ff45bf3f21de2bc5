import { createContext, useContext } from 'react';
import type { WorkbenchApi } from '../../../shared/workbench/methods';

/** The engine connection, for the few views that ask it something themselves (a reveal) instead of reading a store. */
export const WorkbenchApiContext = createContext<WorkbenchApi | null>(null);

export function useWorkbenchApi(): WorkbenchApi {
  const api = useContext(WorkbenchApiContext);
  if (!api) throw new Error('useWorkbenchApi needs a WorkbenchApiContext around the app');
  return api;
}
