import { type FormEvent, useState } from "react";
import { Link } from "react-router";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Field } from "../ui/Field";
import { type useAllGroups, useCreateProject } from "./api";

/** A project in a group (its tier is the group's plan) or in the administrator's own namespace; the page reads the groups. */
export function NewProjectForm({ groups }: { groups: ReturnType<typeof useAllGroups> }) {
  const create = useCreateProject();
  const [name, setName] = useState("");
  const [path, setPath] = useState("");
  const [namespace, setNamespace] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      {
        name: name.trim(),
        ...(path.trim() ? { path: path.trim() } : {}),
        ...(namespace ? { namespace_id: Number(namespace) } : {}),
      },
      {
        onSuccess: () => {
          setName("");
          setPath("");
        },
      },
    );
  };
  return (
    <section aria-labelledby="projects-title" className="stack">
      <h2 id="projects-title">Projects</h2>
      <form className="card stack" onSubmit={submit} aria-labelledby="new-project-title">
        <h3 id="new-project-title">New project</h3>
        <Field label="Project name">
          {(control) => <input {...control} required value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Project slug (path; from the name when empty)">
          {(control) => <input {...control} value={path} onChange={(e) => setPath(e.target.value)} />}
        </Field>
        <Field label="Group" error={groups.error}>
          {(control) => (
            <select {...control} value={namespace} onChange={(e) => setNamespace(e.target.value)} disabled={groups.isPending}>
              <option value="">(your personal namespace)</option>
              {groups.data?.map((g) => (
                <option key={g.id} value={g.id}>
                  {g.full_path}
                </option>
              ))}
            </select>
          )}
        </Field>
        {create.isError && <ErrorMessage error={create.error} />}
        {create.isSuccess && (
          <p role="status" className="message success">
            Project <Link to={`/${create.data.path_with_namespace}`}>{create.data.path_with_namespace}</Link> was created.
          </p>
        )}
        <div className="actions">
          <button type="submit" className="primary" disabled={create.isPending}>
            Create project
          </button>
        </div>
      </form>
    </section>
  );
}
