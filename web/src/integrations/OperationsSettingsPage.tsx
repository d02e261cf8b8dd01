import { useState } from "react";
import { useSearchParams } from "react-router";
import { ACCESS } from "../api/types";
import { useCurrentProject } from "../projects/context";
import { ConfirmDialog } from "../ui/ConfirmDialog";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Loading } from "../ui/Loading";
import { useDocumentTitle } from "../ui/title";
import { AddIntegrationForm } from "./AddIntegrationForm";
import { AlertSettingsForm } from "./AlertSettingsForm";
import { useDeleteIntegration, useIntegrations } from "./api";
import { IntegrationPanel, type PanelTab } from "./IntegrationPanel";
import { IntegrationsTable } from "./IntegrationsTable";
import { OpsgenieForm } from "./OpsgenieForm";
import { SendTestAlert } from "./SendTestAlert";
import type { IntegrationSummary, IntegrationType } from "./types";

const TYPES: IntegrationType[] = ["http", "prometheus", "opsgenie"];

/** Which integration is open, and on which tab, lives in the address (`?integration=http-3&tab=test`). */
function useSelection() {
  const [params, setParams] = useSearchParams();
  const m = /^(http|prometheus|opsgenie)-(\d+)$/.exec(params.get("integration") ?? "");
  const selected = m ? { type: m[1] as IntegrationType, id: Number(m[2]) } : null;
  const tab = (["details", "credentials", "test"].includes(params.get("tab") ?? "") ? params.get("tab") : "details") as PanelTab;
  const adding = params.get("new") === "1";
  return {
    selected,
    tab,
    adding,
    open: (type: IntegrationType, id: number, t: PanelTab = "details") => setParams({ integration: `${type}-${id}`, tab: t }),
    add: () => setParams({ new: "1" }),
    close: () => setParams({}),
  };
}

function Integrations({ fullPath }: { fullPath: string }) {
  const integrations = useIntegrations(fullPath);
  const remove = useDeleteIntegration(fullPath);
  const sel = useSelection();
  const [deleting, setDeleting] = useState<IntegrationSummary | null>(null);
  return (
    <section aria-labelledby="integrations-title" className="stack">
      <h3 id="integrations-title">Current integrations</h3>
      {integrations.isPending ? (
        <Loading label="Loading integrations" />
      ) : integrations.isError ? (
        <ErrorMessage error={integrations.error} />
      ) : (
        <IntegrationsTable
          integrations={integrations.data}
          onEdit={(i) => sel.open(i.type, i.id)}
          onDelete={(i) => {
            remove.reset();
            setDeleting(i);
          }}
        />
      )}
      {remove.isError && <ErrorMessage error={remove.error} />}
      {remove.isSuccess && (
        <p role="status" className="message success">
          Integration deleted.
        </p>
      )}
      {!sel.adding && (
        <div>
          <button type="button" className="primary" onClick={sel.add}>
            Add new integration
          </button>
        </div>
      )}
      {sel.adding && (
        <AddIntegrationForm
          fullPath={fullPath}
          onCancel={sel.close}
          onCreated={(i) => sel.open(i.type, i.id, i.type === "http" ? "credentials" : "details")}
        />
      )}
      {sel.selected && TYPES.includes(sel.selected.type) && sel.selected.type !== "opsgenie" && (
        <IntegrationPanel
          key={`${sel.selected.type}-${sel.selected.id}`}
          fullPath={fullPath}
          type={sel.selected.type}
          id={sel.selected.id}
          tab={sel.tab}
          onTab={(t) => sel.selected && sel.open(sel.selected.type, sel.selected.id, t)}
          onClose={sel.close}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete integration"
        confirmLabel="Delete integration"
        danger
        busy={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => {
          if (!deleting) return;
          const id = deleting.id;
          remove.mutate(id, {
            onSettled: () => setDeleting(null),
            onSuccess: () => {
              if (sel.selected?.type === "http" && sel.selected.id === id) sel.close();
            },
          });
        }}
      >
        <p>
          Deleting <strong>{deleting?.name}</strong> stops its URL from accepting alerts. Alerts already received are kept.
        </p>
      </ConfirmDialog>
    </section>
  );
}

/** A Developer may send test alerts (to an integration whose id a Maintainer gave) and nothing else. */
function DeveloperTestAlert({ fullPath }: { fullPath: string }) {
  const [id, setId] = useState("");
  const valid = /^\d{1,15}$/.test(id) && Number(id) > 0;
  return (
    <section aria-labelledby="test-title" className="card stack">
      <h3 id="test-title">Send test alert</h3>
      <p>Integrations are managed by Maintainers. As a Developer you can send a test alert to an HTTP endpoint.</p>
      <label className="field">
        <span>Integration ID</span>
        <input inputMode="numeric" value={id} onChange={(e) => setId(e.target.value.trim())} />
      </label>
      {valid && <SendTestAlert key={id} fullPath={fullPath} integrationId={Number(id)} />}
    </section>
  );
}

export default function OperationsSettingsPage() {
  const { project, access, fullPath } = useCurrentProject();
  useDocumentTitle(`Monitor settings · ${project.name}`);
  return (
    <>
      <h1>Monitor settings</h1>
      <h2 className="section-title">Alerts</h2>
      <p>Display alerts from all configured monitoring tools.</p>
      {access >= ACCESS.maintainer ? (
        <div className="stack">
          <Integrations fullPath={fullPath} />
          <OpsgenieForm fullPath={fullPath} />
          <AlertSettingsForm fullPath={fullPath} />
        </div>
      ) : (
        <DeveloperTestAlert fullPath={fullPath} />
      )}
    </>
  );
}
