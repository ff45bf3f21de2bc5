import './components.css';

/** A failure the user should read now: announced at once (role=alert), shown in the error colour; nothing when null. */
export function Alert({ message, testId, className }: { message: string | null; testId?: string; className?: string }) {
  if (!message) return null;
  return (
    <p className={className ? `problem ${className}` : 'problem'} role="alert" data-testid={testId}>
      {message}
    </p>
  );
}
