import './components.css';

/** A failure the user should read now: announced at once (role=alert), shown in the error colour; nothing when null. */
export function Alert({ message, testId }: { message: string | null; testId?: string }) {
  if (!message) return null;
  return (
    <p className="problem" role="alert" data-testid={testId}>
      {message}
    </p>
  );
}
