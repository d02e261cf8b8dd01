import { useEffect, useState } from "react";

/** Copies `text` to the clipboard and says so (politely, for screen readers too). */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const t = setTimeout(() => setState("idle"), 2000);
    return () => clearTimeout(t);
  }, [state]);
  const copy = () => {
    navigator.clipboard.writeText(text).then(
      () => setState("copied"),
      () => setState("failed"),
    );
  };
  return (
    <span className="copy">
      <button type="button" onClick={copy}>
        {label}
      </button>
      <span role="status" className="copy-state">
        {state === "copied" ? "Copied" : state === "failed" ? "Copy failed: select the text and copy it" : ""}
      </span>
    </span>
  );
}
