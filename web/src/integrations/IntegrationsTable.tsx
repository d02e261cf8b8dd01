import { type IntegrationSummary, TYPE_LABELS } from "./types";

interface Props {
  integrations: IntegrationSummary[];
  onEdit: (i: IntegrationSummary) => void;
  onDelete: (i: IntegrationSummary) => void;
}

export function IntegrationsTable({ integrations, onEdit, onDelete }: Props) {
  if (integrations.length === 0) return <p className="empty">No integrations have been added yet.</p>;
  return (
    <table>
      <caption className="visually-hidden">Current integrations</caption>
      <thead>
        <tr>
          <th scope="col">Status</th>
          <th scope="col">Integration name</th>
          <th scope="col">Type</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {integrations.map((i) => (
          <tr key={`${i.type}-${i.id}`}>
            <td>
              <span className={`badge ${i.active ? "enabled" : "disabled"}`}>{i.active ? "Enabled" : "Disabled"}</span>
            </td>
            <td>{i.name}</td>
            <td>{TYPE_LABELS[i.type]}</td>
            <td className="actions">
              {i.type === "opsgenie" ? (
                <a href="#opsgenie-title" aria-label={`Edit ${i.name}`}>
                  Edit
                </a>
              ) : (
                <button type="button" onClick={() => onEdit(i)} aria-label={`Edit ${i.name}`}>
                  Edit
                </button>
              )}
              {i.type === "http" && (
                <button type="button" className="danger" onClick={() => onDelete(i)} aria-label={`Delete ${i.name}`}>
                  Delete
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
