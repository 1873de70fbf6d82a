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
    /// Probe results: the saved runs (`#/results`, `None`) or one run, by its id
    /// (`#/results/<run id>`).
    Results(Option<String>),
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
            "results" => Route::Results(None),
            r if r.starts_with("results/") => {
                let id = r.trim_start_matches("results/").trim_end_matches('/');
                Route::Results((!id.is_empty()).then(|| id.to_string()))
            }
            _ => Route::Dataset,
        }
    }

    /// The fragment that opens this route (a share route without its payload).
    pub fn href(&self) -> String {
        match self {
            Route::Dataset => "#/".into(),
            Route::About => "#/about".into(),
            Route::Editor => "#/editor".into(),
            Route::Rewriter => "#/rewriter".into(),
            Route::Share(_) => "#/share".into(),
            Route::Runner => "#/runner".into(),
            Route::Results(None) => "#/results".into(),
            Route::Results(Some(id)) => format!("#/results/{id}"),
        }
    }

    /// Whether this is a share route (any payload), for the header's active link.
    pub fn is_share(&self) -> bool {
        matches!(self, Route::Share(_))
    }
}

/// What [`long_share`] finds in a share route's payload: a mark no fragment holds (the
/// browser writes a NUL in a fragment as `%00`), then the link's length.
const LONG: &str = "\0long:";

/// Share fragments longer than this (UTF-16 units) are not copied out of the
/// browser when the route changes: the share view reads them a slice at a time
/// ([`read_share_link`]) or refuses them by their length. Far longer than any link the site
/// writes (at most 2,000 characters).
pub const LONG_LINK: usize = 64 * 1024;

/// `location.hash`, as the browser holds it (no copy into the page's memory).
fn fragment() -> js_sys::JsString {
    use wasm_bindgen::JsCast;
    js_sys::Reflect::get(&window().location(), &"hash".into())
        .ok()
        .and_then(|h| h.dyn_into().ok())
        .unwrap_or_else(|| js_sys::JsString::from(""))
}

/// The route `location.hash` names. A share link longer than [`LONG_LINK`] is routed with
/// its length alone ([`long_share`]): copying a 15 MB fragment out of the browser took 60 ms
/// of the page's thread.
fn current_route() -> Route {
    let hash = fragment();
    let length = hash.length();
    if length as usize > LONG_LINK {
        let head = String::from(hash.slice(0, 64));
        return match Route::from_hash(&head) {
            Route::Share(_) => Route::Share(format!("{LONG}{}", length - link_start(&head))),
            other => other,
        };
    }
    Route::from_hash(&String::from(hash))
}

/// Where the link starts in a share fragment that starts with `head` (as [`Route::from_hash`]
/// reads it: `#/share/`, or `#share/` or with more slashes), in UTF-16 units.
fn link_start(head: &str) -> u32 {
    let path = head.trim_start_matches('#').trim_start_matches('/');
    let link = path.strip_prefix("share").unwrap_or(path);
    let link = link.trim_start_matches('/');
    (head.len() - link.len()) as u32
}

/// The length of a share link left in the fragment (UTF-16 units, never more than the UTF-8
/// bytes it becomes), from its route's payload; `None` for any other payload.
pub fn long_share(payload: &str) -> Option<usize> {
    payload.strip_prefix(LONG)?.parse().ok()
}

/// The share link in `location.hash` (what follows `#/share/`), copied out of the browser a
/// slice at a time, the event loop given a turn between slices ([`crate::timing::Slices`]).
pub async fn read_share_link() -> String {
    const SLICE: u32 = 256 * 1024;
    let hash = fragment();
    let end = hash.length();
    let mut at = link_start(&String::from(hash.slice(0, 64)));
    let mut link = String::with_capacity(end.saturating_sub(at) as usize);
    let mut slices = crate::timing::Slices::of(crate::timing::Slices::SHORT_MS);
    while at < end {
        let mut to = (at + SLICE).min(end);
        // Never between the two halves of a surrogate pair.
        if to < end && (0xD800..0xDC00).contains(&(hash.char_code_at(to - 1) as u32)) {
            to += 1;
        }
        link.push_str(&String::from(hash.slice(at, to)));
        at = to;
        slices.pause().await;
    }
    link
}

/// Sends the page to `route` (a fixed route; share links are opened by their URL).
pub fn navigate(route: Route) {
    let _ = window().location().set_hash(&route.href());
}

/// The current route, kept in sync with `hashchange`.
pub fn use_route() -> ReadSignal<Route> {
    let current = || crate::timing::timed("route-read", current_route);
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
    fn a_long_links_start_is_found_as_the_route_reads_it() {
        assert_eq!(link_start("#/share/v1.AAAA"), 8);
        assert_eq!(link_start("#share/v1.AAAA"), 7);
        assert_eq!(link_start("#//share//v1.AAAA"), 10);
    }

    #[test]
    fn a_long_share_fragment_is_routed_by_its_length_alone() {
        assert_eq!(long_share(&format!("{LONG}15002538")), Some(15_002_538));
        // A link, even one spelling the mark without its NUL, is not.
        assert_eq!(long_share("v1.AAAA"), None);
        assert_eq!(long_share("long:12"), None);
        assert_eq!(long_share(""), None);
    }

    #[test]
    fn every_fixed_route_round_trips_through_its_fragment() {
        for r in [
            Route::Dataset,
            Route::About,
            Route::Editor,
            Route::Rewriter,
            Route::Runner,
            Route::Results(None),
            Route::Results(Some("run-1764000000000".into())),
        ] {
            assert_eq!(Route::from_hash(&r.href()), r, "{}", r.href());
        }
        assert_eq!(
            Route::from_hash(&Route::Share("x".into()).href()),
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
            Route::Results(Some("run-1764000000000".into()))
        );
        assert_eq!(Route::from_hash("#/results/"), Route::Results(None));
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
