// jsdom has no layout engine: scrolling (ScrollRestoration) is a no-op in unit tests.
window.scrollTo = () => undefined;
