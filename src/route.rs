//! Routes live in the URL fragment (`#/about`): static servers answer deep paths with 404, and
//! share links carry their payload in the fragment too (leptos_router has no hash mode).

use leptos::prelude::*;

/// The screens the app has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// The dataset browser (`#/` or no fragment).
    Dataset,
    /// Credits, licences and what the app is (`#/about`).
    About,
    /// The table editor on `AppState::work_item` (`#/editor`).
    Editor,
    /// The hypothesis rewriter on `AppState::work_item` (`#/rewriter`).
    Rewriter,
    /// A shared probe result (`#/share/<payload>`); an empty payload offers to open a link
    /// or a result file.
    Share(String),
    /// The probe runner (`#/runner`).
    Runner,
    /// Probe results: saved runs (`#/results`) or one run (`#/results/<run id>`).
    Results,
}

impl Route {
    /// Parses a `location.hash` value; unknown fragments show the dataset browser.
    pub fn from_hash(hash: &str) -> Route {
        let path = hash.trim_start_matches('#').trim_start_matches('/');
        if let Some(payload) = path.strip_prefix("share") {
            return Route::Share(payload.trim_start_matches('/').to_string());
        }
        match path {
            // `#/about/<anchor>` opens the About page at a glossary entry.
            r if r == "about" || r.starts_with("about/") => Route::About,
            "editor" => Route::Editor,
            "rewriter" => Route::Rewriter,
            "runner" => Route::Runner,
            r if r == "results" || r.starts_with("results/") => Route::Results,
            _ => Route::Dataset,
        }
    }

    /// The fragment that opens this route (a share route without its payload).
    pub fn href(&self) -> &'static str {
        match self {
            Route::Dataset => "#/",
            Route::About => "#/about",
            Route::Editor => "#/editor",
            Route::Rewriter => "#/rewriter",
            Route::Share(_) => "#/share",
            Route::Runner => "#/runner",
            Route::Results => "#/results",
        }
    }

    /// Whether this is a share route (any payload), for the header's active link.
    pub fn is_share(&self) -> bool {
        matches!(self, Route::Share(_))
    }
}

/// Sends the page to `route` (a fixed route; share links are opened by their URL).
pub fn navigate(route: Route) {
    let _ = window().location().set_hash(route.href());
}

/// The current route, kept in sync with `hashchange`.
pub fn use_route() -> ReadSignal<Route> {
    let current = || Route::from_hash(&window().location().hash().unwrap_or_default());
    let (route, set_route) = signal(current());
    let handle = window_event_listener(leptos::ev::hashchange, move |_| {
        set_route.set(current());
        // Each navigation opens its view at the top, not at the old view's scroll position.
        window().scroll_to_with_x_and_y(0.0, 0.0);
    });
    on_cleanup(move || handle.remove());
    route
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fixed_route_round_trips_through_its_fragment() {
        for r in [
            Route::Dataset,
            Route::About,
            Route::Editor,
            Route::Rewriter,
            Route::Runner,
            Route::Results,
        ] {
            assert_eq!(Route::from_hash(r.href()), r, "{}", r.href());
        }
        assert_eq!(
            Route::from_hash(Route::Share("x".into()).href()),
            Route::Share(String::new())
        );
    }

    #[test]
    fn fragments_people_and_links_use() {
        assert_eq!(Route::from_hash(""), Route::Dataset);
        assert_eq!(Route::from_hash("#"), Route::Dataset);
        assert_eq!(Route::from_hash("#runner"), Route::Runner);
        // A glossary anchor opens the About page; a run id opens the results.
        assert_eq!(Route::from_hash("#/about/omega_max"), Route::About);
        assert_eq!(
            Route::from_hash("#/results/run-1764000000000"),
            Route::Results
        );
        // A share link keeps its payload, slashes and all.
        let r = Route::from_hash("#/share/v1.abc/def");
        assert_eq!(r, Route::Share("v1.abc/def".into()));
        assert!(r.is_share() && !Route::Runner.is_share());
        // Unknown fragments, and ones that only start like a route, show the dataset browser.
        assert_eq!(Route::from_hash("#/nowhere"), Route::Dataset);
        assert_eq!(Route::from_hash("#/runners"), Route::Dataset);
        assert_eq!(Route::from_hash("#/aboutx"), Route::Dataset);
    }
}
