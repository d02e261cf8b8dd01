import { useCurrentProject } from "../projects/context";
import { useDocumentTitle } from "../ui/title";
import { ChatIntegrationForm } from "./ChatIntegrationForm";
import { CHAT_NAMES } from "./types";

/** `/<full_path>/-/settings/integrations`: Slack, Mattermost and Microsoft Teams (Maintainer+). */
export default function ChatIntegrationsPage() {
  const { project, fullPath } = useCurrentProject();
  useDocumentTitle(`Integrations · ${project.name}`);
  return (
    <>
      <h1>Integrations</h1>
      <p>Send alert and incident notifications to a chat channel.</p>
      <div className="stack">
        {CHAT_NAMES.map((name) => (
          <ChatIntegrationForm key={name} fullPath={fullPath} name={name} />
        ))}
      </div>
    </>
  );
}
