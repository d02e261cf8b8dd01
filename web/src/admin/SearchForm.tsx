import { type FormEvent, useState } from "react";
import { Field } from "../ui/Field";

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
        <Field label={label} inline>
          {(control) => <input {...control} type="search" value={text} onChange={(e) => setText(e.target.value)} />}
        </Field>
        <button type="submit">Search</button>
      </form>
    </search>
  );
}
