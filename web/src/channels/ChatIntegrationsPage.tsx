import { useCurrentProject } from "../projects/context";
import { PENDING, QueryState } from "../ui/QueryState";
import { useDocumentTitle } from "../ui/title";
import { type Target, useChatIntegrations, useDeliveries } from "./api";
import { ChatIntegrationForm } from "./ChatIntegrationForm";
import { CHAT_NAMES, CHAT_TITLES } from "./types";

/** `/<full_path>/-/settings/integrations`: Slack, Mattermost and Microsoft Teams (Maintainer+); the page reads them and their deliveries. */
export default function ChatIntegrationsPage() {
  const { project, fullPath } = useCurrentProject();
  useDocumentTitle(`Integrations · ${project.name}`);
  const chats = useChatIntegrations(fullPath, CHAT_NAMES);
  // Recent deliveries of the integrations that were saved.
  const saved = CHAT_NAMES.filter((_, i) => chats[i]?.data);
  const deliveries = useDeliveries(
    fullPath,
    saved.map((name): Target => `integrations/${name}`),
  );
  return (
    <>
      <h1>Integrations</h1>
      <p>Send alert and incident notifications to a chat channel.</p>
      <div className="stack">
        {CHAT_NAMES.map((name, i) => (
          <section key={name} className="card stack" aria-labelledby={`chat-${name}-title`}>
            <h2 id={`chat-${name}-title`}>{CHAT_TITLES[name]}</h2>
            <QueryState query={chats[i] ?? PENDING}>
              {(current) => (
                <ChatIntegrationForm
                  fullPath={fullPath}
                  name={name}
                  current={current}
                  deliveries={saved.includes(name) ? deliveries[saved.indexOf(name)] : undefined}
                />
              )}
            </QueryState>
          </section>
        ))}
      </div>
    </>
  );
}
