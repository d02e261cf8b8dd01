import { type KeyboardEvent, type ReactNode, useId, useRef } from "react";

interface Tab<K extends string> {
  key: K;
  label: ReactNode;
}

interface Props<K extends string> {
  label: string;
  tabs: Tab<K>[];
  selected: K;
  onSelect: (key: K) => void;
  children: ReactNode;
}

/** ARIA tabs: arrow keys, Home and End move between tabs; the panel follows the selection. */
export function Tabs<K extends string>({ label, tabs, selected, onSelect, children }: Props<K>) {
  const base = useId();
  const list = useRef<HTMLDivElement>(null);
  const onKey = (e: KeyboardEvent) => {
    const i = tabs.findIndex((t) => t.key === selected);
    let next = i;
    if (e.key === "ArrowRight") next = (i + 1) % tabs.length;
    else if (e.key === "ArrowLeft") next = (i - 1 + tabs.length) % tabs.length;
    else if (e.key === "Home") next = 0;
    else if (e.key === "End") next = tabs.length - 1;
    else return;
    e.preventDefault();
    const tab = tabs[next];
    if (!tab) return;
    onSelect(tab.key);
    list.current?.querySelectorAll<HTMLButtonElement>('[role="tab"]')[next]?.focus();
  };
  return (
    <div className="tabs">
      <div role="tablist" aria-label={label} ref={list} onKeyDown={onKey}>
        {tabs.map((t) => (
          <button
            key={t.key}
            type="button"
            role="tab"
            id={`${base}-${t.key}`}
            aria-selected={t.key === selected}
            aria-controls={`${base}-panel`}
            tabIndex={t.key === selected ? 0 : -1}
            onClick={() => onSelect(t.key)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${base}-panel`} aria-labelledby={`${base}-${selected}`} className="tab-panel">
        {children}
      </div>
    </div>
  );
}
