import { useState } from "react";
import { ACCESS } from "../api/types";
import { useSchedules } from "../oncall/api";
import { useCurrentProject } from "../projects/context";
import { ConfirmDialog } from "../ui/ConfirmDialog";
import { ErrorMessage } from "../ui/ErrorMessage";
import { QueryState } from "../ui/QueryState";
import { useDocumentTitle } from "../ui/title";
import { type Policy, useDeletePolicy, usePolicies } from "./api";
import { PolicyForm } from "./PolicyForm";
import { repeatSentence, ruleSentence } from "./wording";

function PolicyCard({
  policy,
  canWrite,
  onEdit,
  onDelete,
}: {
  policy: Policy;
  canWrite: boolean;
  onEdit: () => void;
  onDelete: () => void;
}) {
  return (
    <section className="card" aria-labelledby={`policy-${policy.id}`}>
      <h2 id={`policy-${policy.id}`}>{policy.name}</h2>
      {policy.description && <p className="muted">{policy.description}</p>}
      <ol className="stack" aria-label={`Rules of ${policy.name}`}>
        {policy.rules.map((r) => (
          <li key={`${r.status}-${r.elapsed_time_seconds}-${r.oncall_schedule?.iid ?? r.user?.id}`}>{ruleSentence(r)}</li>
        ))}
      </ol>
      <p>{repeatSentence(policy)}</p>
      {canWrite && (
        <div className="actions">
          <button type="button" onClick={onEdit}>
            Edit policy
          </button>
          <button type="button" className="danger" onClick={onDelete}>
            Delete policy
          </button>
        </div>
      )}
    </section>
  );
}

/** `/<full_path>/-/escalation_policies` (PRODUCT.md section 11): the project's policy, in GitLab's words. */
export default function EscalationPoliciesPage() {
  const { project, fullPath, access } = useCurrentProject();
  useDocumentTitle(`Escalation policies · ${project.name}`);
  const policies = usePolicies(fullPath);
  const remove = useDeletePolicy(fullPath);
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const canWrite = access >= ACCESS.maintainer;
  // The schedules a rule may page, for the form.
  const schedules = useSchedules(fullPath, editing);
  return (
    <QueryState query={policies} loading="Loading escalation policies">
      {([policy]) => (
        <>
          <h1>Escalation policies</h1>
          {!policy && !editing && <p className="empty">No escalation policy: alerts page nobody.</p>}
          {policy && !editing && (
            <PolicyCard
              policy={policy}
              canWrite={canWrite}
              onEdit={() => setEditing(true)}
              onDelete={() => setConfirming(true)}
            />
          )}
          {canWrite && !policy && !editing && (
            <div className="actions">
              <button type="button" className="primary" onClick={() => setEditing(true)}>
                Add an escalation policy
              </button>
            </div>
          )}
          {editing && (
            <PolicyForm
              key={policy?.id ?? 0}
              fullPath={fullPath}
              {...(policy ? { policy } : {})}
              schedules={schedules.data ?? []}
              onDone={() => setEditing(false)}
            />
          )}
          {remove.isError && <ErrorMessage error={remove.error} />}
          {policy && (
            <ConfirmDialog
              open={confirming}
              title={`Delete ${policy.name}?`}
              confirmLabel="Delete policy"
              danger
              busy={remove.isPending}
              onConfirm={() => remove.mutate(policy.id, { onSettled: () => setConfirming(false) })}
              onCancel={() => setConfirming(false)}
            >
              <p>New alerts will page nobody until a policy is added again.</p>
            </ConfirmDialog>
          )}
        </>
      )}
    </QueryState>
  );
}
