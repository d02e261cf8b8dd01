import { ErrorMessage } from "../ui/ErrorMessage";
import { Loading } from "../ui/Loading";
import { Tabs } from "../ui/Tabs";
import { useIntegration } from "./api";
import { ConfigureDetails } from "./ConfigureDetails";
import { CustomMapping } from "./mapping/CustomMapping";
import { SendTestAlert } from "./SendTestAlert";
import { type IntegrationType, TYPE_LABELS } from "./types";
import { ViewCredentials } from "./ViewCredentials";

export type PanelTab = "details" | "credentials" | "test";

interface Props {
  fullPath: string;
  type: IntegrationType;
  id: number;
  tab: PanelTab;
  onTab: (tab: PanelTab) => void;
  onClose: () => void;
}

export function IntegrationPanel({ fullPath, type, id, tab, onTab, onClose }: Props) {
  const integration = useIntegration(fullPath, type, id);
  if (integration.isPending) return <Loading label="Loading the integration" />;
  if (integration.isError) return <ErrorMessage error={integration.error} />;
  const i = integration.data;
  const tabs = [
    { key: "details" as const, label: "Configure details" },
    { key: "credentials" as const, label: "View credentials" },
    ...(i.type === "http" ? [{ key: "test" as const, label: "Send test alert" }] : []),
  ];
  const selected = tabs.some((t) => t.key === tab) ? tab : "details";
  return (
    <section className="card" aria-labelledby="integration-title">
      <div className="panel-head">
        <h3 id="integration-title">
          {i.name} <span className="muted">({TYPE_LABELS[i.type]})</span>
        </h3>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <Tabs label={`Integration ${i.name}`} tabs={tabs} selected={selected} onSelect={onTab}>
        {selected === "details" && <ConfigureDetails key={i.updated_at} fullPath={fullPath} integration={i} />}
        {selected === "details" && i.type === "http" && <CustomMapping key={i.id} integration={i} />}
        {selected === "credentials" && <ViewCredentials fullPath={fullPath} integration={i} />}
        {selected === "test" && <SendTestAlert fullPath={fullPath} integrationId={i.id} />}
      </Tabs>
    </section>
  );
}
