import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { createPolling, nextPollMs } from "./polling";

describe("polls that back off from a slow server", () => {
  it("keeps the page's interval while answers are quick, and waits five answers' time when they are not", () => {
    expect(nextPollMs(3_000, undefined)).toBe(3_000);
    expect(nextPollMs(3_000, 40)).toBe(3_000);
    expect(nextPollMs(3_000, 600)).toBe(3_000);
    expect(nextPollMs(3_000, 601)).toBe(3_005);
    expect(nextPollMs(3_000, 8_000)).toBe(40_000);
  });

  it("times each query's fetch and sets its next poll from it", async () => {
    let clock = 0;
    const { polled } = createPolling(() => clock);
    const client = new QueryClient();
    const slow = polled(3_000, {
      queryKey: ["alerts", "group/project", "list", { page: 1 }],
      queryFn: async () => {
        clock += 2_000; // the server took two seconds
        return "page 1";
      },
    });
    const quick = polled(3_000, {
      queryKey: ["alerts", "group/project", "list", { page: 2 }],
      queryFn: async () => {
        clock += 30;
        return "page 2";
      },
    });
    expect(await client.fetchQuery(slow)).toBe("page 1");
    expect(await client.fetchQuery(quick)).toBe("page 2");
    const query = (key: readonly unknown[]) => {
      const found = client.getQueryCache().find({ queryKey: key, exact: true });
      if (!found) throw new Error("no query");
      return found as never;
    };
    expect(slow.refetchInterval(query(slow.queryKey))).toBe(10_000);
    expect(quick.refetchInterval(query(quick.queryKey))).toBe(3_000);
  });

  it("times a failed fetch too", async () => {
    let clock = 0;
    const { polled } = createPolling(() => clock);
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const failing = polled(3_000, {
      queryKey: ["overview", "group/project"],
      queryFn: async (): Promise<string> => {
        clock += 4_000;
        throw new Error("503");
      },
    });
    await expect(client.fetchQuery(failing)).rejects.toThrow("503");
    const found = client.getQueryCache().find({ queryKey: failing.queryKey, exact: true });
    expect(failing.refetchInterval(found as never)).toBe(20_000);
  });

  it("remembers the last 200 queries only", async () => {
    let clock = 0;
    const { polled } = createPolling(() => clock);
    const client = new QueryClient();
    const options = (page: number) =>
      polled(3_000, {
        queryKey: ["alerts", "p", "list", { page }],
        queryFn: async () => {
          clock += 1_000;
          return page;
        },
      });
    for (let page = 1; page <= 201; page++) await client.fetchQuery(options(page));
    const intervalOf = (page: number) =>
      options(page).refetchInterval(client.getQueryCache().find({ queryKey: ["alerts", "p", "list", { page }] }) as never);
    expect(intervalOf(1)).toBe(3_000); // forgotten: the page's own interval again
    expect(intervalOf(2)).toBe(5_000);
    expect(intervalOf(201)).toBe(5_000);
  });
});
