import { Tabs } from "../ui/Tabs";
import { ConfigureDetails } from "./ConfigureDetails";
import { CustomMapping, type MappingFields } from "./mapping/CustomMapping";
import { SendTestAlert } from "./SendTestAlert";
import { type Integration, TYPE_LABELS } from "./types";
import { ViewCredentials } from "./ViewCredentials";

export type PanelTab = "details" | "credentials" | "test";

interface Props {
  fullPath: string;
  integration: Integration;
  /** The custom mapping's parsed fields (HTTP endpoints), read by the page. */
  mapping: MappingFields;
  tab: PanelTab;
  onTab: (tab: PanelTab) => void;
  onClose: () => void;
}

/** One integration's tabs; the page reads the integration. */
export function IntegrationPanel({ fullPath, integration: i, mapping, tab, onTab, onClose }: Props) {
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
        {selected === "details" && i.type === "http" && <CustomMapping key={i.id} integration={i} mapping={mapping} />}
        {selected === "credentials" && <ViewCredentials fullPath={fullPath} integration={i} />}
        {selected === "test" && <SendTestAlert fullPath={fullPath} integrationId={i.id} />}
      </Tabs>
    </section>
  );
}
