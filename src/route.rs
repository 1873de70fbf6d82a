//! Routes live in the URL fragment (`#/about`): static servers answer deep paths with 404, and
//! share links will carry their payload in the fragment too (leptos_router has no hash mode).

use leptos::prelude::*;

/// The screens the app has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// The dataset browser (`#/` or no fragment).
    Dataset,
    /// Credits, licences and what the app is (`#/about`).
    About,
}

impl Route {
    /// Parses a `location.hash` value; unknown fragments show the dataset browser.
    pub fn from_hash(hash: &str) -> Route {
        match hash.trim_start_matches('#').trim_start_matches('/') {
            "about" => Route::About,
            _ => Route::Dataset,
        }
    }

    /// The fragment that opens this route.
    pub fn href(self) -> &'static str {
        match self {
            Route::Dataset => "#/",
            Route::About => "#/about",
        }
    }
}

/// The current route, kept in sync with `hashchange`.
pub fn use_route() -> ReadSignal<Route> {
    let current = || Route::from_hash(&window().location().hash().unwrap_or_default());
    let (route, set_route) = signal(current());
    let handle = window_event_listener(leptos::ev::hashchange, move |_| set_route.set(current()));
    on_cleanup(move || handle.remove());
    route
}
