import { useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { AlertsTabs } from "../alerts/AlertsTabs";
import { useAlertCounts } from "../alerts/api";
import { ACCESS } from "../api/types";
import { projectPath } from "../projects/address";
import { useCurrentProject } from "../projects/context";
import { ConfirmDialog } from "../ui/ConfirmDialog";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Pager } from "../ui/Pager";
import { QueryState } from "../ui/QueryState";
import { Tabs } from "../ui/Tabs";
import { useDocumentTitle } from "../ui/title";
import { useExpireSilence, useSilences } from "./api";
import { matcherText, parseMatcherText } from "./matchers";
import { SilenceForm } from "./SilenceForm";
import { SilencesTable } from "./SilencesTable";
import { SILENCE_STATES, type Silence, type SilenceState } from "./types";

const STATE_LABELS: Record<SilenceState, string> = { active: "Active", pending: "Pending", expired: "Expired" };

/**
 * `/<full_path>/-/alert_management/silences` (PRODUCT.md section 13), the *Silences* tab of the alerts
 * page (its tab row above, see AlertsTabs): the project's silences by state, and for Maintainer+ the form to create one and *Expire*. `?matcher=name=value` (repeated)
 * opens the form prefilled: *Silence alerts like this* links here so.
 */
export default function SilencesPage() {
  const { project, fullPath, access } = useCurrentProject();
  useDocumentTitle(`Silences · ${project.name}`);
  const canWrite = access >= ACCESS.maintainer;
  const [params, setParams] = useSearchParams();
  const stateParam = params.get("state") ?? "";
  const state = (SILENCE_STATES as readonly string[]).includes(stateParam) ? (stateParam as SilenceState) : "active";
  const page = Math.max(1, Number(params.get("page")) || 1);
  const prefill = params.getAll("matcher").flatMap((t) => parseMatcherText(t) ?? []);
  const [creating, setCreating] = useState(params.has("matcher"));
  const [created, setCreated] = useState<Silence | null>(null);
  const [expiring, setExpiring] = useState<Silence | null>(null);
  const silences = useSilences(fullPath, state, page);
  const counts = useAlertCounts(fullPath, { search: "", severity: "", service: "", monitoringTool: "" });
  const navigate = useNavigate();
  const expire = useExpireSilence(fullPath);
  const show = (next: { state?: SilenceState; page?: number }) => {
    const s = next.state ?? state;
    const p = next.page ?? 1;
    setParams({ ...(s !== "active" ? { state: s } : {}), ...(p > 1 ? { page: String(p) } : {}) });
  };
  return (
    <>
      <p className="breadcrumb">
        <Link to={projectPath(fullPath, "alert_management")}>Alerts</Link> / Silences
      </p>
      <AlertsTabs
        fullPath={fullPath}
        counts={counts.data}
        selected="silences"
        onStatus={(tab) =>
          void navigate(`${projectPath(fullPath, "alert_management")}${tab === "open" ? "" : `?status=${tab}`}`, {
            state: { fromTabs: true },
          })
        }
      >
        <h1>Silences</h1>
        {created && (
          <p role="status" className="message success">
            Silence created for {created.matchers.map(matcherText).join(", ")}.
          </p>
        )}
        {expire.isSuccess && (
          <p role="status" className="message success">
            Silence expired.
          </p>
        )}
        {canWrite && !creating && (
          <div className="actions">
            <button type="button" className="primary" onClick={() => setCreating(true)}>
              New silence
            </button>
          </div>
        )}
        {canWrite && creating && (
          <SilenceForm
            fullPath={fullPath}
            initial={prefill}
            onCancel={() => setCreating(false)}
            onDone={(s) => {
              setCreated(s);
              setCreating(false);
              show({ state: s.state });
            }}
          />
        )}
        <Tabs
          label="Silence state"
          tabs={SILENCE_STATES.map((key) => ({ key, label: STATE_LABELS[key] }))}
          selected={state}
          onSelect={(s) => show({ state: s })}
        >
          <QueryState
            query={silences}
            loading="Loading silences"
            isEmpty={(d) => d.silences.length === 0}
            empty={<p className="empty">No {state} silences.</p>}
          >
            {(d) => (
              <>
                <SilencesTable silences={d.silences} {...(canWrite ? { onExpire: setExpiring } : {})} />
                <Pager label="Silences pages" page={page} totalPages={d.info.totalPages} onPage={(p) => show({ page: p })} />
              </>
            )}
          </QueryState>
        </Tabs>
        {expire.isError && <ErrorMessage error={expire.error} />}
        <ConfirmDialog
          open={!!expiring}
          title="Expire this silence?"
          confirmLabel="Expire silence"
          danger
          busy={expire.isPending}
          onConfirm={() => expiring && expire.mutate(expiring.id, { onSettled: () => setExpiring(null) })}
          onCancel={() => setExpiring(null)}
        >
          <p>
            Alerts matching {expiring?.matchers.map(matcherText).join(", ")} notify again from now; an alert still triggered
            notifies once.
          </p>
        </ConfirmDialog>
      </AlertsTabs>
    </>
  );
}
