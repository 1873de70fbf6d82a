//! "Copy link" for one probe result: encodes a [`SharedResult`] into a `#/share/…` link,
//! copies it, and shows it; a result too large for a link becomes a downloadable file.
//! Any view can put it next to an item: `<ShareButton result=signal_of_option_result/>`.

use leptos::prelude::*;
use leptos::task::spawn_local;
use tabprobe_core::share::{
    encode, fits_in_link, link_chars, to_file, SharedResult, MAX_LINK_CHARS, SHARE_FRAGMENT,
};

/// What the last click produced.
#[derive(Clone, Debug, PartialEq)]
enum Shared {
    Nothing,
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
pub fn ShareButton(#[prop(into)] result: Signal<Option<SharedResult>>) -> impl IntoView {
    let shared = RwSignal::new(Shared::Nothing);
    // A new result makes the old link stale.
    Effect::new(move |_| {
        result.track();
        shared.set(Shared::Nothing);
    });
    let on_click = move |_| {
        let Some(r) = result.get_untracked() else {
            return;
        };
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
            match to_file(&r) {
                Ok(json) => {
                    let href = format!(
                        "data:application/json;charset=utf-8,{}",
                        js_sys::encode_uri_component(&json)
                    );
                    shared.set(Shared::File {
                        href,
                        chars: chars.unwrap_or(usize::MAX),
                    })
                }
                Err(e) => shared.set(Shared::Failed(e.to_string())),
            }
            return;
        }
        let url = share_url(&payload);
        shared.set(Shared::Link {
            url: url.clone(),
            copied: None,
        });
        let clipboard = window().navigator().clipboard();
        spawn_local(async move {
            let ok = wasm_bindgen_futures::JsFuture::from(clipboard.write_text(&url))
                .await
                .is_ok();
            shared.update(|s| {
                if let Shared::Link { url: u, copied } = s {
                    if *u == url {
                        *copied = Some(ok);
                    }
                }
            });
        });
    };
    let outcome = move || {
        match shared.get() {
        Shared::Nothing => None,
        Shared::Link { url, copied } => {
            let note = match copied {
                None => "copying…",
                Some(true) => "Link copied. Anyone who opens it sees this result, no dataset needed.",
                Some(false) => "Copy the link below (the browser did not allow copying).",
            };
            Some(
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
                    </div>
                }
                .into_any(),
            )
        }
        Shared::File { href, chars } => Some(
            view! {
                <div class="share-outcome" data-testid="share-too-long">
                    <span>
                        {format!("This result is too large for a link ({chars} characters; links stay under {MAX_LINK_CHARS}). ")}
                        "Download it as a result file; the recipient opens it under Share → “Open a result file”."
                    </span>
                    <a class="button" href=href download="tabprobe-result.json" data-testid="share-file">"Download result file"</a>
                </div>
            }
            .into_any(),
        ),
        Shared::Failed(e) => Some(view! { <p class="error" role="alert">{e}</p> }.into_any()),
    }
    };
    view! {
        <div class="share-button">
            <button class="button" data-testid="copy-link" on:click=on_click disabled=move || result.with(|r| r.is_none())
                title="Copy a link that shows this result to anyone, with no dataset loaded">
                "Copy link"
            </button>
            {outcome}
        </div>
    }
}
