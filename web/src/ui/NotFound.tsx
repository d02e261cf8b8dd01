import { Link } from "react-router";
import { useDocumentTitle } from "./title";

/** GitLab's answer for an address that does not exist or that the visitor may not see. */
export function NotFound() {
  useDocumentTitle("Not found");
  return (
    <section className="not-found" aria-labelledby="not-found-title">
      <p className="big" aria-hidden="true">
        404
      </p>
      <h1 id="not-found-title">Page not found</h1>
      <p>The page could not be found or you don't have permission to view it.</p>
      <p>
        <Link to="/">Go to your projects</Link>
      </p>
    </section>
  );
}
