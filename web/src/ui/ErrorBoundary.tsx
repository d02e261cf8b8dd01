import { Component, type ReactNode } from "react";

interface State {
  error: Error | null;
}

/**
 * Catches what a page throws while rendering — typically a page's code that no longer exists
 * after an upgrade (its fingerprinted file was replaced) — and offers a reload instead of a
 * blank page.
 */
export class ErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <div role="alert" className="message error">
        <p>This page could not be shown: {this.state.error.message}</p>
        <button type="button" onClick={() => window.location.reload()}>
          Reload the page
        </button>
      </div>
    );
  }
}
