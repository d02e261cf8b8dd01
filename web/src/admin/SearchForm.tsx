import { type FormEvent, useState } from "react";

/** A search box for an Admin Area list: `onSearch` gets the trimmed text when submitted. */
export function SearchForm({ label, onSearch }: { label: string; onSearch: (text: string) => void }) {
  const [text, setText] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSearch(text.trim());
  };
  return (
    <search>
      <form className="toolbar" onSubmit={submit}>
        <label className="field inline">
          <span>{label}</span>
          <input type="search" value={text} onChange={(e) => setText(e.target.value)} />
        </label>
        <button type="submit">Search</button>
      </form>
    </search>
  );
}
