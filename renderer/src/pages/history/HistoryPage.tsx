import { SplitPane } from '../../components/SplitPane';
import { EntryPanel } from './EntryPanel';
import { HistoryList } from './HistoryList';
import './history.css';

/** Every request the engine handled, beside the one selected. */
export function HistoryPage() {
  return <SplitPane label="Resize the request list" storageKey="tokenbench.history.split" initial={0.5} start={<HistoryList />} end={<EntryPanel />} />;
}
