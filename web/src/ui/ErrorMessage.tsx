import { ApiError } from "../api/client";

/** An error as the API words it. */
export function ErrorMessage({ error }: { error: unknown }) {
  const text = error instanceof ApiError || error instanceof Error ? error.message : String(error);
  return (
    <p role="alert" className="message error">
      {text}
    </p>
  );
}

export const isStatus = (error: unknown, status: number) => error instanceof ApiError && error.status === status;
