import { useEffect, useState, type RefObject } from 'react';
import { bringIntoView } from '../../components/bring-into-view';
import { useComposerStore } from '../../state/composer-store';
import { useResponseState, type ResponseState } from './response-state';

/** The answer in one sentence, as a screen reader says it when it arrives. */
function sentenceOf(state: ResponseState | null): string {
  if (!state) return '';
  if (state.kind === 'unreachable') return 'Answer: the service could not be reached.';
  if (state.kind === 'cancelled') return 'Cancelled before the answer was complete.';
  return `Answer: ${state.title}, ${state.response.status} ${state.response.status_text}.`;
}

/**
 * When the request in flight is answered: the Response comes into view (a small window stacks it under the request,
 * out of sight), and the sentence returned, for a live region, tells a screen reader what came back. Showing another
 * tab's answer says nothing and moves nothing.
 */
export function useAnswerArrival(response: RefObject<HTMLElement | null>): string {
  const sending = useComposerStore((composer) => composer.sending);
  const state = useResponseState();
  const [seen, setSeen] = useState(sending);
  const [arrival, setArrival] = useState({ count: 0, sentence: '' });
  if (seen !== sending) {
    setSeen(sending);
    // Emptied while a request is in flight, so the same answer twice is said twice.
    if (sending !== null) setArrival({ ...arrival, sentence: '' });
    else if (seen !== null) setArrival({ count: arrival.count + 1, sentence: sentenceOf(state) });
  }
  useEffect(() => {
    if (arrival.count > 0) bringIntoView(response.current);
  }, [arrival.count, response]);
  return arrival.sentence;
}
