import { useState } from "react";
import { ConfirmDialog } from "../ui/ConfirmDialog";
import { ErrorMessage } from "../ui/ErrorMessage";
import { QueryState } from "../ui/QueryState";
import { Time } from "../ui/Time";
import { useDocumentTitle } from "../ui/title";
import { type PersonalAccessToken, useRevokeToken, useTokens } from "./api";
import { NewTokenForm } from "./NewTokenForm";

export default function PersonalAccessTokensPage() {
  useDocumentTitle("Personal access tokens");
  const tokens = useTokens();
  const revoke = useRevokeToken();
  const [revoking, setRevoking] = useState<PersonalAccessToken | null>(null);
  const active = tokens.data?.filter((t) => t.active && !t.revoked) ?? [];
  return (
    <>
      <h1>Personal access tokens</h1>
      <p>
        Personal access tokens authenticate calls to the REST API (header <code>PRIVATE-TOKEN</code> or{" "}
        <code>Authorization: Bearer</code>).
      </p>
      <NewTokenForm />
      <section aria-labelledby="active-tokens-title">
        <h2 id="active-tokens-title">Active personal access tokens</h2>
        {revoke.isError && <ErrorMessage error={revoke.error} />}
        {revoke.isSuccess && (
          <p role="status" className="message success">
            The token was revoked.
          </p>
        )}
        <QueryState
          query={tokens}
          loading="Loading tokens"
          isEmpty={() => active.length === 0}
          empty={<p className="empty">This user has no active personal access tokens.</p>}
        >
          {() => (
            <table>
              <caption className="visually-hidden">Active personal access tokens</caption>
              <thead>
                <tr>
                  <th scope="col">Token name</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Created</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Action</th>
                </tr>
              </thead>
              <tbody>
                {active.map((t) => (
                  <tr key={t.id}>
                    <td>{t.name}</td>
                    <td>{t.scopes.join(", ")}</td>
                    <td>
                      <Time iso={t.created_at} />
                    </td>
                    <td>{t.expires_at ?? "Never"}</td>
                    <td>
                      <button type="button" className="danger" aria-label={`Revoke ${t.name}`} onClick={() => setRevoking(t)}>
                        Revoke
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </QueryState>
      </section>
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke token"
        confirmLabel="Revoke"
        danger
        busy={revoke.isPending}
        onCancel={() => setRevoking(null)}
        onConfirm={() => revoking && revoke.mutate(revoking.id, { onSettled: () => setRevoking(null) })}
      >
        <p>
          Are you sure you want to revoke the token <strong>{revoking?.name}</strong>? This action cannot be undone: every call
          made with it will be refused.
        </p>
      </ConfirmDialog>
    </>
  );
}
