import { SOURCE_LABELS, type AnswerSource } from './answer-source';
import './components.css';

/** Who chose the status, in words, colour and shape: the destination's answer relayed, or the proxy's own error. */
export function AnswerBanner({ answer }: { answer: AnswerSource }) {
  return (
    <div className={`answer answer-${answer.source}`} role="status" data-testid="entry-answer" data-source={answer.source}>
      <span className="answer-label" data-testid="entry-answer-label">
        {SOURCE_LABELS[answer.source]}
      </span>
      <strong data-testid="entry-answer-title">{answer.title}</strong>
      <p data-testid="entry-answer-explanation">{answer.explanation}</p>
    </div>
  );
}
