import { type ComponentType, lazy } from "react";

/**
 * A page in its own chunk, fetched as soon as the app starts (in parallel with the session check)
 * rather than when first rendered. Once the chunk is in, the page renders directly: React never
 * suspends on it, so it does not pay React's 300 ms throttle on revealing suspended content
 * (measured by bench/console-pages.mjs). Before that, it suspends like `lazy()`.
 */
export function lazyPage<P extends object>(load: () => Promise<{ default: ComponentType<P> }>): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  const promise = load().then((m) => {
    loaded = m.default;
    return m;
  });
  const Lazy = lazy(() => promise);
  return function Page(props: P) {
    const Component = loaded ?? Lazy;
    return <Component {...props} />;
  };
}
