import { useState } from "react";
import { useSearchParams } from "react-router";
import { ACCESS } from "../api/types";
import { useCurrentProject } from "../projects/context";
import { ConfirmDialog } from "../ui/ConfirmDialog";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Field } from "../ui/Field";
import { QueryState } from "../ui/QueryState";
import { useDocumentTitle } from "../ui/title";
import { AddIntegrationForm } from "./AddIntegrationForm";
import { AlertSettingsForm } from "./AlertSettingsForm";
import {
  useAlertSettings,
  useCreateIntegration,
  useDeleteIntegration,
  useIntegration,
  useIntegrations,
  useOpsgenie,
} from "./api";
import { IntegrationPanel, type PanelTab } from "./IntegrationPanel";
import { IntegrationsTable } from "./IntegrationsTable";
import { savedSample, usePayloadFields } from "./mapping/api";
import type { MappingFields } from "./mapping/CustomMapping";
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

interface IntegrationsProps {
  fullPath: string;
  integrations: IntegrationSummary[];
  /** The integration open in the panel, read by the page. */
  opened: ReturnType<typeof useIntegration> | null;
  mapping: MappingFields;
  sel: ReturnType<typeof useSelection>;
}

function Integrations({ fullPath, integrations, opened, mapping, sel }: IntegrationsProps) {
  const create = useCreateIntegration(fullPath);
  const remove = useDeleteIntegration(fullPath);
  const [deleting, setDeleting] = useState<IntegrationSummary | null>(null);
  return (
    <>
      <IntegrationsTable
        integrations={integrations}
        onEdit={(i) => sel.open(i.type, i.id)}
        onDelete={(i) => {
          remove.reset();
          setDeleting(i);
        }}
      />
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
          onSubmit={(input) => create.mutateAsync(input)}
          onCancel={sel.close}
          onCreated={(i) => sel.open(i.type, i.id, i.type === "http" ? "credentials" : "details")}
        />
      )}
      {opened && sel.selected && (
        <QueryState key={`${sel.selected.type}-${sel.selected.id}`} query={opened} loading="Loading the integration">
          {(integration) => (
            <IntegrationPanel
              fullPath={fullPath}
              integration={integration}
              mapping={mapping}
              tab={sel.tab}
              onTab={(t) => sel.selected && sel.open(sel.selected.type, sel.selected.id, t)}
              onClose={sel.close}
            />
          )}
        </QueryState>
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
    </>
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
      <Field label="Integration ID">
        {(control) => <input {...control} inputMode="numeric" value={id} onChange={(e) => setId(e.target.value.trim())} />}
      </Field>
      {valid && <SendTestAlert key={id} fullPath={fullPath} integrationId={Number(id)} />}
    </section>
  );
}

/** Monitor settings → Alerts: the page reads the integrations, the open one, Opsgenie and the alert settings. */
export default function OperationsSettingsPage() {
  const { project, access, fullPath } = useCurrentProject();
  useDocumentTitle(`Monitor settings · ${project.name}`);
  const maintainer = access >= ACCESS.maintainer;
  const sel = useSelection();
  const panel = sel.selected && TYPES.includes(sel.selected.type) && sel.selected.type !== "opsgenie" ? sel.selected : null;
  const integrations = useIntegrations(fullPath, maintainer);
  const opened = useIntegration(fullPath, panel?.type ?? "http", panel?.id ?? 0, maintainer && panel !== null);
  const opsgenie = useOpsgenie(fullPath, maintainer);
  const alertSettings = useAlertSettings(fullPath, maintainer);
  // The custom mapping's sample: the saved one until another is parsed (for the open endpoint).
  const panelKey = panel ? `${panel.type}-${panel.id}` : "";
  const [parsedBy, setParsedBy] = useState<{ key: string; sample: string } | null>(null);
  const parsed = parsedBy?.key === panelKey ? parsedBy.sample : savedSample(opened.data) || null;
  const premium = (project.tier ?? "free") !== "free";
  const fields = usePayloadFields(fullPath, maintainer && premium && panel?.type === "http" ? parsed : null);
  const mapping: MappingFields = { fields, parsed, onParse: (sample) => setParsedBy({ key: panelKey, sample }) };
  return (
    <>
      <h1>Monitor settings</h1>
      <h2 className="section-title">Alerts</h2>
      <p>Display alerts from all configured monitoring tools.</p>
      {maintainer ? (
        <div className="stack">
          <section aria-labelledby="integrations-title" className="stack">
            <h3 id="integrations-title">Current integrations</h3>
            <QueryState query={integrations} loading="Loading integrations">
              {(list) => (
                <Integrations
                  fullPath={fullPath}
                  integrations={list}
                  opened={panel ? opened : null}
                  mapping={mapping}
                  sel={sel}
                />
              )}
            </QueryState>
          </section>
          <section className="card" aria-labelledby="opsgenie-title">
            <h3 id="opsgenie-title">Opsgenie</h3>
            <p>While the Opsgenie link is active, alerts are managed in Opsgenie and no other integration can be active.</p>
            <QueryState query={opsgenie}>{(current) => <OpsgenieForm fullPath={fullPath} current={current} />}</QueryState>
          </section>
          <section className="card" aria-labelledby="alert-settings-title">
            <h3 id="alert-settings-title">Alert settings</h3>
            <QueryState query={alertSettings}>
              {(current) => <AlertSettingsForm fullPath={fullPath} current={current} />}
            </QueryState>
          </section>
        </div>
      ) : (
        <DeveloperTestAlert fullPath={fullPath} />
      )}
    </>
  );
}
