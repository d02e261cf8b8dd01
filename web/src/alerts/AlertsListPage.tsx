import { type FormEvent, useState } from "react";
import { useSearchParams } from "react-router";
import { useCurrentProject } from "../projects/context";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Field } from "../ui/Field";
import { capitalize } from "../ui/format";
import { Pager } from "../ui/Pager";
import { QueryState } from "../ui/QueryState";
import { useDocumentTitle } from "../ui/title";
import { AlertsTable } from "./AlertsTable";
import { AlertsTabs } from "./AlertsTabs";
import { useAlertCounts, useAlerts } from "./api";
import { type AlertTab, type ListParams, SEVERITIES, type Severity, SORT_FIELDS, type SortField, TABS } from "./types";

/** List state lives in the address, so that a list can be bookmarked and shared. */
function useListParams(): [ListParams, (change: Partial<ListParams>) => void] {
  const [params, setParams] = useSearchParams();
  const tab = (TABS as readonly string[]).includes(params.get("status") ?? "") ? (params.get("status") as AlertTab) : "open";
  const orderBy = (SORT_FIELDS as readonly string[]).includes(params.get("order_by") ?? "")
    ? (params.get("order_by") as SortField)
    : "started_at";
  const sort = params.get("sort") === "asc" ? "asc" : "desc";
  const page = Math.max(1, Number(params.get("page")) || 1);
  const severityParam = params.get("severity") ?? "";
  const severity = (SEVERITIES as readonly string[]).includes(severityParam) ? (severityParam as Severity) : "";
  const current: ListParams = {
    tab,
    search: params.get("search") ?? "",
    severity,
    service: params.get("service") ?? "",
    monitoringTool: params.get("monitoring_tool") ?? "",
    orderBy,
    sort,
    page,
    perPage: 20,
  };
  const update = (change: Partial<ListParams>) => {
    const next = { ...current, page: 1, ...change };
    const q: Record<string, string> = {};
    if (next.tab !== "open") q.status = next.tab;
    if (next.search) q.search = next.search;
    if (next.severity) q.severity = next.severity;
    if (next.service) q.service = next.service;
    if (next.monitoringTool) q.monitoring_tool = next.monitoringTool;
    if (next.orderBy !== "started_at") q.order_by = next.orderBy;
    if (next.sort !== "desc") q.sort = next.sort;
    if (next.page > 1) q.page = String(next.page);
    setParams(q);
  };
  return [current, update];
}

export default function AlertsListPage() {
  const { project, fullPath } = useCurrentProject();
  useDocumentTitle(`Alerts · ${project.name}`);
  const [p, update] = useListParams();
  const [text, setText] = useState(p.search);
  const [service, setService] = useState(p.service);
  const [tool, setTool] = useState(p.monitoringTool);
  const alerts = useAlerts(fullPath, p);
  const counts = useAlertCounts(fullPath, {
    search: p.search,
    severity: p.severity,
    service: p.service,
    monitoringTool: p.monitoringTool,
  });
  const filtered = !!(p.search || p.severity || p.service || p.monitoringTool);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    update({ search: text.trim(), service: service.trim(), monitoringTool: tool.trim() });
  };
  const clear = () => {
    setText("");
    setService("");
    setTool("");
    update({ search: "", severity: "", service: "", monitoringTool: "" });
  };
  const onSort = (field: SortField) =>
    update({ orderBy: field, sort: field === p.orderBy ? (p.sort === "desc" ? "asc" : "desc") : "desc" });

  return (
    <>
      <h1>Alerts</h1>
      {alerts.data?.notice && <p className="message info">{alerts.data.notice}</p>}
      <search>
        <form className="toolbar" onSubmit={submit}>
          <Field label="Search alerts" inline>
            {(control) => (
              <input {...control} type="search" name="search" value={text} onChange={(e) => setText(e.target.value)} />
            )}
          </Field>
          <Field label="Severity" inline>
            {(control) => (
              <select {...control} value={p.severity} onChange={(e) => update({ severity: e.target.value as Severity | "" })}>
                <option value="">All severities</option>
                {SEVERITIES.map((s) => (
                  <option key={s} value={s}>
                    {capitalize(s)}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Service" inline>
            {(control) => (
              <input {...control} type="text" name="service" value={service} onChange={(e) => setService(e.target.value)} />
            )}
          </Field>
          <Field label="Monitoring tool" inline>
            {(control) => (
              <input {...control} type="text" name="monitoring_tool" value={tool} onChange={(e) => setTool(e.target.value)} />
            )}
          </Field>
          <button type="submit">Search</button>
          {filtered && (
            <button type="button" onClick={clear}>
              Clear filters
            </button>
          )}
          <Field label="Sort by" inline>
            {(control) => (
              <select {...control} value={p.orderBy} onChange={(e) => update({ orderBy: e.target.value as SortField })}>
                <option value="started_at">Start time</option>
                <option value="severity">Severity</option>
                <option value="status">Status</option>
                <option value="events">Events</option>
              </select>
            )}
          </Field>
          <button type="button" onClick={() => update({ sort: p.sort === "desc" ? "asc" : "desc" })}>
            {p.sort === "desc" ? "Order: newest / highest first" : "Order: oldest / lowest first"}
          </button>
        </form>
      </search>
      <AlertsTabs fullPath={fullPath} counts={counts.data} selected={p.tab} onStatus={(tab) => update({ tab })}>
        <QueryState
          query={alerts}
          loading="Loading alerts"
          isEmpty={(d) => d.alerts.length === 0}
          empty={
            <p className="empty">
              {filtered ? "No alerts match these filters." : "No alerts to display."}
              {!filtered && p.tab === "open" && " New alerts appear here as they arrive."}
            </p>
          }
        >
          {(d) => (
            <>
              <AlertsTable fullPath={fullPath} alerts={d.alerts} orderBy={p.orderBy} sort={p.sort} onSort={onSort} />
              <Pager label="Alerts pages" page={p.page} totalPages={d.info.totalPages} onPage={(page) => update({ page })} />
            </>
          )}
        </QueryState>
      </AlertsTabs>
      {counts.isError && <ErrorMessage error={counts.error} />}
    </>
  );
}
