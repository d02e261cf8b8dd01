import { useMutation, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, projectApi } from "../api/client";

/** Section 11's REST shapes (docs/oncall.md). */

export interface OncallUser {
  id: number;
  username: string;
  name: string;
  state: "active" | "blocked" | "removed";
}

export interface Rotation {
  id: number;
  name: string;
  starts_at: string;
  ends_at: string | null;
  rotation_length: { length: number; unit: "hours" | "days" | "weeks" };
  active_period: { start_time: string; end_time: string } | null;
  participants: { user: OncallUser }[];
}

export interface Schedule {
  iid: number;
  name: string;
  description: string;
  timezone: string;
  rotations: Rotation[];
}

export interface Override {
  id: number;
  user: OncallUser;
  starts_at: string;
  ends_at: string;
}

export interface Shift {
  rotation_id: number | null;
  override_id: number | null;
  user: OncallUser;
  starts_at: string;
  ends_at: string;
}

const base = (fullPath: string) => `${projectApi(fullPath)}/incident_management/oncall_schedules`;
const schedulesKey = (fullPath: string) => ["oncall-schedules", fullPath] as const;

export function useSchedules(fullPath: string, enabled = true) {
  return useQuery({
    enabled,
    queryKey: schedulesKey(fullPath),
    queryFn: ({ signal }) => api.get<Schedule[]>(base(fullPath), signal),
  });
}

/** The overrides of each schedule, in the order of `iids`. */
export function useOverrides(fullPath: string, iids: number[]) {
  return useQueries({
    queries: iids.map((iid) => ({
      queryKey: [...schedulesKey(fullPath), iid, "overrides"],
      queryFn: ({ signal }: { signal: AbortSignal }) => api.get<Override[]>(`${base(fullPath)}/${iid}/overrides`, signal),
    })),
  });
}

/** The shifts of each schedule in its window `[from, to)` (ISO instants), in the order of `windows`. */
export function useShifts(fullPath: string, windows: { iid: number; from: string; to: string }[]) {
  return useQueries({
    queries: windows.map(({ iid, from, to }) => ({
      queryKey: [...schedulesKey(fullPath), iid, "shifts", from, to],
      queryFn: ({ signal }: { signal: AbortSignal }) =>
        api.get<Shift[]>(`${base(fullPath)}/${iid}/shifts?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`, signal),
    })),
  });
}

/** Every change of schedules refreshes the schedules, their overrides and shifts. */
function useOncallMutation<T>(fullPath: string, fn: (body: T) => Promise<unknown>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => client.invalidateQueries({ queryKey: schedulesKey(fullPath) }),
  });
}

export const useCreateSchedule = (fullPath: string) =>
  useOncallMutation(fullPath, (body: { name: string; description: string; timezone: string }) => api.post(base(fullPath), body));

export interface RotationBody {
  name: string;
  starts_at: string;
  ends_at: string | null;
  rotation_length: { length: number; unit: string };
  active_period: { start_time: string; end_time: string } | null;
  participants: { username: string }[];
}

/** Creates a rotation, or (with `id`) replaces an existing one's fields. */
export const useSaveRotation = (fullPath: string, iid: number) =>
  useOncallMutation(fullPath, ({ id, body }: { id: number | undefined; body: RotationBody }) =>
    id === undefined
      ? api.post(`${base(fullPath)}/${iid}/rotations`, body)
      : api.put(`${base(fullPath)}/${iid}/rotations/${id}`, body),
  );

export const useDeleteRotation = (fullPath: string, iid: number) =>
  useOncallMutation(fullPath, (id: number) => api.delete(`${base(fullPath)}/${iid}/rotations/${id}`));

export const useCreateOverride = (fullPath: string, iid: number) =>
  useOncallMutation(fullPath, (body: { username: string; starts_at: string; ends_at: string }) =>
    api.post(`${base(fullPath)}/${iid}/overrides`, body),
  );

export const useDeleteOverride = (fullPath: string, iid: number) =>
  useOncallMutation(fullPath, (id: number) => api.delete(`${base(fullPath)}/${iid}/overrides/${id}`));
