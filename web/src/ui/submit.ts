import { useState } from "react";

/**
 * A save handed down by the page (`onSave`, the page's mutation) with what a form shows of it:
 * whether it is under way (and with what), and the error it ended with.
 */
export function useSubmit<A, R>(onSave: (input: A) => Promise<R>) {
  const [pending, setPending] = useState<{ input: A } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const submit = (input: A, then?: (answer: R) => void) => {
    setPending({ input });
    setError(null);
    onSave(input).then(
      (answer) => {
        setPending(null);
        then?.(answer);
      },
      (err: unknown) => {
        setPending(null);
        setError(err);
      },
    );
  };
  return { submit, pending: pending?.input, isPending: pending !== null, error };
}
