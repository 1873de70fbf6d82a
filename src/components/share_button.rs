//! "Copy link" for one probe result: encodes a [`SharedResult`] into a `#/share/…` link,
//! copies it, and shows it; a result too large for a link becomes a downloadable file.
//! Any view can put it next to an item: `<ShareButton result=signal_of_option_result/>`.
//! While `waiting` says the live predictions are still being computed, a click waits for
//! them (the button says so) and copies the link when they arrive (issue 18 §1): a link
//! copied mid-scoring would silently say "Predictions: not recorded".

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_core::share::{
    encode, fits_in_link, link_chars, to_file, SharedResult, MAX_LINK_CHARS, SHARE_FRAGMENT,
};

/// What the last click produced.
#[derive(Clone, Debug, PartialEq)]
enum Shared {
    Nothing,
    /// Clicked while the scores were being computed: copy when they arrive.
    Waiting,
    /// A link; `copied` says whether the clipboard took it.
    Link {
        url: String,
        copied: Option<bool>,
    },
    /// Too long for a link: a data URL of the result file.
    File {
        href: String,
        chars: usize,
    },
    Failed(String),
}

/// The page's address without its fragment.
fn page_base() -> String {
    let href = window().location().href().unwrap_or_default();
    href.split('#').next().unwrap_or_default().to_string()
}

/// The page's address without its fragment, followed by `#/share/<payload>`.
pub fn share_url(payload: &str) -> String {
    format!("{}{SHARE_FRAGMENT}{payload}", page_base())
}

/// A "copy link" button for `result` (disabled while it is `None`).
#[component]
pub fn ShareButton(
    #[prop(into)] result: Signal<Option<SharedResult>>,
    /// Whether the predictions `result` carries are still being computed.
    #[prop(optional, into)]
    waiting: Option<Signal<bool>>,
    /// The button's text (default "Copy link").
    #[prop(optional)]
    label: Option<&'static str>,
) -> impl IntoView {
    let label = label.unwrap_or("Copy link");
    let waiting = waiting.unwrap_or_else(|| Signal::stored(false));
    let shared = RwSignal::new(Shared::Nothing);
    // The result the shown link was made from: the link goes stale only when the result
    // really changes, not each time a signal it derives from fires with the same value (live
    // scores arriving after the click cleared a freshly made link).
    let made_from = StoredValue::new(None::<SharedResult>);
    let copy = move || copy_result(result, shared, made_from);
    // A new result makes the old link stale; a click that waited copies once the scores
    // are in.
    Effect::new(move |_| {
        let current = result.get();
        let still_waiting = waiting.get();
        match shared.get_untracked() {
            Shared::Waiting => {
                if !still_waiting {
                    copy();
                }
            }
            Shared::Nothing => {}
            _ => {
                if made_from.with_value(|m| m.as_ref() != current.as_ref()) {
                    shared.set(Shared::Nothing);
                }
            }
        }
    });
    let on_click = move |_| {
        if waiting.get_untracked() {
            shared.set(Shared::Waiting);
        } else {
            copy();
        }
    };
    let outcome = move || outcome_view(shared.get(), result);
    view! {
        <div class="share-button">
            <button class="button" data-testid="copy-link" on:click=on_click
                disabled=move || result.with(|r| r.is_none()) || shared.get() == Shared::Waiting
                title="Copy a link that shows this result to anyone, with no dataset loaded">
                {move || if shared.get() == Shared::Waiting { format!("{label} (waiting for scores…)") } else { label.to_string() }}
            </button>
            {outcome}
        </div>
    }
}

/// Encodes the current `result` into a link (or, too long for one, a result file), records
/// it in `shared` and copies the link to the clipboard.
fn copy_result(
    result: Signal<Option<SharedResult>>,
    shared: RwSignal<Shared>,
    made_from: StoredValue<Option<SharedResult>>,
) {
    let Some(r) = result.get_untracked() else {
        return;
    };
    made_from.set_value(Some(r.clone()));
    let r = r.compact();
    let payload = match encode(&r) {
        Ok(payload) => payload,
        Err(e) => {
            shared.set(Shared::Failed(e.to_string()));
            return;
        }
    };
    // Counted with checked arithmetic (core `share::link_chars`): the release build has
    // no overflow checks.
    let chars = link_chars(&page_base(), &payload);
    if !fits_in_link(chars) {
        shared.set(as_file(&r, chars));
        return;
    }
    let url = share_url(&payload);
    shared.set(Shared::Link {
        url: url.clone(),
        copied: None,
    });
    write_clipboard(url, shared);
}

/// `r` as a downloadable result file, for a link of `chars` characters (`None`: past
/// `usize`) that would be too long.
fn as_file(r: &SharedResult, chars: Option<usize>) -> Shared {
    match to_file(r) {
        Ok(json) => {
            let href = format!(
                "data:application/json;charset=utf-8,{}",
                js_sys::encode_uri_component(&json)
            );
            Shared::File {
                href,
                chars: chars.unwrap_or(usize::MAX),
            }
        }
        Err(e) => Shared::Failed(e.to_string()),
    }
}

/// Writes `url` to the clipboard and records in `shared` whether it took it (when `shared`
/// still shows that link).
fn write_clipboard(url: String, shared: RwSignal<Shared>) {
    // `navigator.clipboard` exists only in secure contexts (https, localhost): elsewhere
    // it is undefined and writing to it would throw, so the link is shown as not copied.
    let clipboard = window()
        .is_secure_context()
        .then(|| window().navigator().clipboard());
    spawn_local(async move {
        let ok = match clipboard {
            Some(clipboard) => wasm_bindgen_futures::JsFuture::from(clipboard.write_text(&url))
                .await
                .is_ok(),
            None => false,
        };
        shared.update(|s| {
            if let Shared::Link { url: u, copied } = s {
                if *u == url {
                    *copied = Some(ok);
                }
            }
        });
    });
}

/// What the last click produced, under the button (`result` is read untracked).
fn outcome_view(shared: Shared, result: Signal<Option<SharedResult>>) -> Option<AnyView> {
    match shared {
        Shared::Nothing => None,
        Shared::Waiting => Some(
            view! { <span class="muted" data-testid="share-note" role="status">"The link is copied as soon as the predictions are in."</span> }
                .into_any(),
        ),
        Shared::Link { url, copied } => {
            let no_predictions = result.with_untracked(|r| r.as_ref().is_some_and(|r| r.predictions.is_none()));
            Some(link_outcome(url, copied, no_predictions))
        }
        Shared::File { href, chars } => Some(file_outcome(href, chars)),
        Shared::Failed(e) => Some(view! { <p class="error" role="alert">{e}</p> }.into_any()),
    }
}

/// The link made, whether it was copied, and its length.
fn link_outcome(url: String, copied: Option<bool>, no_predictions: bool) -> AnyView {
    let note = match copied {
        None => "copying…",
        Some(true) => "Link copied. Anyone who opens it sees this result, no dataset needed.",
        Some(false) => "Copy the link below (the browser did not allow copying).",
    };
    view! {
        <div class="share-outcome">
            <span class="muted" data-testid="share-note">{note}</span>
            <input class="share-link" readonly data-testid="share-link" prop:value=url.clone()
                aria-label="share link"
                on:focus=move |ev| {
                    use wasm_bindgen::JsCast;
                    if let Some(i) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                        i.select();
                    }
                }/>
            <span class="muted">{format!("{} characters", url.chars().count())}</span>
            {no_predictions.then(|| view! { <span class="muted" data-testid="share-no-predictions">" The link carries no predictions: no model had scored this item."</span> })}
        </div>
    }
    .into_any()
}

/// A result too large for a link: its file to download.
fn file_outcome(href: String, chars: usize) -> AnyView {
    view! {
        <div class="share-outcome" data-testid="share-too-long">
            <span>
                {format!("This result is too large for a link ({chars} characters; links stay under {MAX_LINK_CHARS}). ")}
                "Download it as a result file; the recipient opens it under Share → “Open a result file”."
            </span>
            <a class="button" href=href download="tabprobe-result.json" data-testid="share-file">"Download result file"</a>
        </div>
    }
    .into_any()
}
