import { useState } from 'react';

/** An error from the engine or the transport, as the workbench tells it (the engine's problem detail when it sent one). */
export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A call to the engine that the user started with a button: whether it is running, and why it failed last. */
export function useEngineCall(): { busy: boolean; problem: string | null; run(call: () => Promise<void>): Promise<void> } {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  async function run(call: () => Promise<void>) {
    setBusy(true);
    setProblem(null);
    try {
      await call();
    } catch (error) {
      setProblem(messageOf(error));
    } finally {
      setBusy(false);
    }
  }
  return { busy, problem, run };
}
