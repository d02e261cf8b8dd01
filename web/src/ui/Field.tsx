import { type ReactNode, useId } from "react";
import { ApiError } from "../api/client";

/** The props Field gives its control: the id its label points at, and its hint and error. */
interface ControlProps {
  id: string;
  "aria-describedby"?: string;
  "aria-invalid"?: true;
}

interface Props {
  label: ReactNode;
  /** A line under the control, read with it (`aria-describedby`). */
  hint?: ReactNode;
  /** An error shown under the control (a string, or an API error as the API words it); none when falsy. */
  error?: unknown;
  inline?: boolean;
  children: (control: ControlProps) => ReactNode;
}

const messageOf = (error: unknown) =>
  typeof error === "string" ? error : error instanceof ApiError || error instanceof Error ? error.message : String(error);

/**
 * One form field: label, control, hint and error, with the ids wired for assistive technology
 * (`<label for>`, `aria-describedby` naming the hint and the error, `aria-invalid` on error).
 */
export function Field({ label, hint, error, inline, children }: Props) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const described = [hint ? hintId : "", error ? errorId : ""].filter(Boolean).join(" ");
  return (
    <div className={inline ? "field inline" : "field"}>
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        ...(described ? { "aria-describedby": described } : {}),
        ...(error ? { "aria-invalid": true as const } : {}),
      })}
      {hint && (
        <span id={hintId} className="muted help">
          {hint}
        </span>
      )}
      {error ? (
        <p id={errorId} role="alert" className="message error">
          {messageOf(error)}
        </p>
      ) : null}
    </div>
  );
}
