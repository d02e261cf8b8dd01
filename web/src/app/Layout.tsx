import { Link, Outlet, useNavigate } from "react-router";
import { useSession, useSignOut } from "../session/api";

export function Layout() {
  const session = useSession();
  const signOut = useSignOut();
  const navigate = useNavigate();
  const user = session.data?.user;
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to main content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          Tocsin
        </Link>
        {user && (
          <nav aria-label="Main">
            <Link to="/">Projects</Link>
            <Link to="/-/profile/notifications">Notifications</Link>
            <Link to="/-/user_settings/personal_access_tokens">Access tokens</Link>
            {user.is_admin && <Link to="/admin">Admin Area</Link>}
          </nav>
        )}
        {user && (
          <div className="user">
            <span>
              Signed in as <strong>{user.username}</strong>
            </span>
            <button
              type="button"
              onClick={() => signOut.mutate(undefined, { onSettled: () => navigate("/users/sign_in", { replace: true }) })}
            >
              Sign out
            </button>
          </div>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}
