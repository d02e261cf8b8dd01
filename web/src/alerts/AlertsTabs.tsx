import { type ReactNode, useEffect, useRef } from "react";
import { useLocation, useNavigate } from "react-router";
import { projectPath } from "../projects/address";
import { Tabs } from "../ui/Tabs";
import { type AlertTab, TABS } from "./types";

const TAB_LABELS: Record<AlertTab, string> = {
  open: "Open",
  triggered: "Triggered",
  acknowledged: "Acknowledged",
  resolved: "Resolved",
  all: "All alerts",
};

interface Props {
  fullPath: string;
  /** Alerts per status tab (the alerts page's counts), or undefined while they load. */
  counts: Record<AlertTab, number> | undefined;
  selected: AlertTab | "silences";
  /** A status tab was chosen (the silences page leaves for the alert list, with state `{fromTabs: true}`). */
  onStatus: (tab: AlertTab) => void;
  children: ReactNode;
}

/**
 * The alerts page's tab row (PRODUCT.md sections 8 and 13): the statuses with their counts, then
 * *Silences*, whose panel is the silences page (`…/-/alert_management/silences`, its own address
 * so that *Silence alerts like this* can link to it prefilled).
 */
export function AlertsTabs({ fullPath, counts, selected, onStatus, children }: Props) {
  const navigate = useNavigate();
  const row = useRef<HTMLDivElement>(null);
  const arrivedByTab = (useLocation().state as { fromTabs?: boolean } | null)?.fromTabs === true;
  // Reached from the other page's tab row (a key or a click): the focus stays on the tab row.
  useEffect(() => {
    if (arrivedByTab) row.current?.querySelector<HTMLElement>('[role="tab"][aria-selected="true"]')?.focus();
  }, [arrivedByTab]);
  const tabs = [
    ...TABS.map((key) => ({
      key: key as AlertTab | "silences",
      label: (
        <>
          {TAB_LABELS[key]} <span className="count">{counts ? counts[key] : "…"}</span>
        </>
      ),
    })),
    { key: "silences" as const, label: "Silences" },
  ];
  const onSelect = (key: AlertTab | "silences") => {
    if (key === "silences") void navigate(projectPath(fullPath, "alert_management", "silences"), { state: { fromTabs: true } });
    else onStatus(key);
  };
  return (
    <div ref={row}>
      <Tabs label="Alert status" tabs={tabs} selected={selected} onSelect={onSelect}>
        {children}
      </Tabs>
    </div>
  );
}
