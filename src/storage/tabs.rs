//! This tab among the site's other open tabs (docs/browser-storage.md#two-tabs).
//!
//! - **Who this tab is**: an id kept in `sessionStorage`, so a reload is the same tab (its
//!   drafts and its run in progress are found again) and a second tab is another.
//! - **Who else is open**: a `BroadcastChannel` on which every tab says every
//!   [`HEARTBEAT_MS`] that it is here and what it is doing (a run, an edit); a tab not heard
//!   for [`GONE_AFTER_MS`] is gone. The page shows the others ([`crate::state::OtherTab`]).
//! - **Who is alive, for sure**: every tab holds a Web Lock named after its id for its whole
//!   life; a lock the browser no longer lists belongs to a closed (or crashed) tab, so a run
//!   that tab kept may be resumed here ([`open_tabs`]).
//! - **What changed**: a tab that wrote the kept dataset says so ([`announce_dataset`]); the
//!   others merge it into theirs at once (`session::reconcile`).

use std::cell::RefCell;

use js_sys::{Array, Function, Promise, Reflect};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{BroadcastChannel, MessageEvent};

use crate::state::{AppState, OtherTab};

/// The channel every tab of the site listens on.
const CHANNEL: &str = "tabprobe-tabs";
/// The `sessionStorage` key of this tab's id.
const TAB_KEY: &str = "tabprobe-tab";
/// Web Lock names: this prefix and the tab's id.
const LOCK_PREFIX: &str = "tabprobe-tab:";
/// How often a tab says it is here.
pub const HEARTBEAT_MS: u32 = 2_000;
/// A tab not heard for this long is taken as closed.
pub const GONE_AFTER_MS: f64 = 6_000.0;

/// What tabs tell each other.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Note {
    /// The sender's id.
    tab: String,
    /// What it says.
    kind: NoteKind,
    /// What it is doing, in a few words ("running a probe set: 120 of 900 pairs").
    #[serde(default)]
    doing: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum NoteKind {
    /// Just opened: everyone answers [`NoteKind::Here`].
    Hello,
    /// Still open.
    Here,
    /// Closing.
    Bye,
    /// It wrote the kept dataset.
    Dataset,
}

thread_local! {
    static ID: RefCell<Option<String>> = const { RefCell::new(None) };
    static CHANNEL_OPEN: RefCell<Option<BroadcastChannel>> = const { RefCell::new(None) };
    static DOING: RefCell<String> = const { RefCell::new(String::new()) };
}

/// This tab's id (made on first use: 12 random base-36 digits, kept for the tab's life).
pub fn tab_id() -> String {
    if let Some(id) = ID.with(|i| i.borrow().clone()) {
        return id;
    }
    let storage = web_sys::window().and_then(|w| w.session_storage().ok().flatten());
    let kept = storage
        .as_ref()
        .and_then(|s| s.get_item(TAB_KEY).ok().flatten())
        .filter(|id| id.len() == 12 && id.bytes().all(|b| b.is_ascii_alphanumeric()));
    let id = kept.unwrap_or_else(|| {
        // Not a seeded draw on purpose: it names a tab, it never reaches a result.
        (0..12)
            .map(|_| {
                let d = (js_sys::Math::random() * 36.0) as u32 % 36;
                char::from_digit(d, 36).unwrap_or('0')
            })
            .collect()
    });
    if let Some(s) = &storage {
        let _ = s.set_item(TAB_KEY, &id);
    }
    ID.with(|i| *i.borrow_mut() = Some(id.clone()));
    id
}

fn post(kind: NoteKind) {
    let note = Note {
        tab: tab_id(),
        kind,
        doing: DOING.with(|d| d.borrow().clone()),
    };
    let Ok(text) = serde_json::to_string(&note) else {
        return;
    };
    CHANNEL_OPEN.with(|c| {
        if let Some(c) = c.borrow().as_ref() {
            let _ = c.post_message(&JsValue::from_str(&text));
        }
    });
}

/// Says what this tab is doing now: sent with the next heartbeat, and at once when the kind
/// of work changed (a run's counts in brackets move with every batch: they wait for the beat).
pub fn set_doing(doing: String) {
    let kind = |d: &str| d.split('(').next().unwrap_or_default().to_string();
    let changed = DOING.with(|d| {
        let mut d = d.borrow_mut();
        let changed = kind(&d) != kind(&doing);
        *d = doing;
        changed
    });
    if changed {
        post(NoteKind::Here);
    }
}

/// Tells the other tabs that this tab wrote the kept dataset.
pub fn announce_dataset() {
    post(NoteKind::Dataset);
}

/// Joins the site's tabs: holds this tab's lock, says hello, keeps
/// [`crate::state::KeptState::others`] up to date, and calls `dataset_changed` when another
/// tab wrote the kept dataset. Call once at start.
pub fn start(state: AppState, dataset_changed: impl Fn() + 'static) {
    hold_lock();
    let Ok(channel) = BroadcastChannel::new(CHANNEL) else {
        // No BroadcastChannel (a very old browser): the tab works alone, as before.
        return;
    };
    let me = tab_id();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        let Some(note) = event
            .data()
            .as_string()
            .and_then(|t| serde_json::from_str::<Note>(&t).ok())
        else {
            return;
        };
        if note.tab == me {
            return;
        }
        let now = js_sys::Date::now();
        match note.kind {
            NoteKind::Bye => state.kept.others.update(|o| o.retain(|t| t.id != note.tab)),
            kind => {
                heard(state, &note, now);
                if kind == NoteKind::Hello {
                    post(NoteKind::Here);
                }
                if kind == NoteKind::Dataset {
                    dataset_changed();
                }
            }
        }
    });
    channel.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler, the channel and the heartbeat live as long as the page.
    on_message.forget();
    CHANNEL_OPEN.with(|c| *c.borrow_mut() = Some(channel));
    post(NoteKind::Hello);
    let beat = gloo::timers::callback::Interval::new(HEARTBEAT_MS, move || {
        post(NoteKind::Here);
        let now = js_sys::Date::now();
        let gone = state
            .kept
            .others
            .with_untracked(|o| o.iter().any(|t| now - t.seen_ms > GONE_AFTER_MS));
        if gone {
            state
                .kept
                .others
                .update(|o| o.retain(|t| now - t.seen_ms <= GONE_AFTER_MS));
        }
    });
    beat.forget();
    if let Some(window) = web_sys::window() {
        let bye = Closure::<dyn FnMut()>::new(move || post(NoteKind::Bye));
        let _ = window.add_event_listener_with_callback("pagehide", bye.as_ref().unchecked_ref());
        bye.forget();
    }
}

/// Records that `note`'s tab was heard at `now`.
fn heard(state: AppState, note: &Note, now: f64) {
    state.kept.others.update(
        |others| match others.iter_mut().find(|t| t.id == note.tab) {
            Some(t) => {
                t.doing = note.doing.clone();
                t.seen_ms = now;
            }
            None => others.push(OtherTab {
                id: note.tab.clone(),
                doing: note.doing.clone(),
                seen_ms: now,
            }),
        },
    );
}

/// `navigator.locks`, where the browser has it.
fn locks() -> Option<JsValue> {
    let navigator = web_sys::window()?.navigator();
    Reflect::get(&navigator, &"locks".into())
        .ok()
        .filter(|l| !l.is_undefined() && !l.is_null())
}

/// Holds this tab's Web Lock until the tab goes (the callback's promise never settles).
fn hold_lock() {
    let Some(locks) = locks() else { return };
    let Ok(request) = Reflect::get(&locks, &"request".into()) else {
        return;
    };
    let Ok(request) = request.dyn_into::<Function>() else {
        return;
    };
    let forever = Closure::<dyn FnMut(JsValue) -> Promise>::new(|_lock: JsValue| {
        Promise::new(&mut |_resolve, _reject| {})
    });
    let name = JsValue::from_str(&format!("{LOCK_PREFIX}{}", tab_id()));
    let _ = request.call2(&locks, &name, forever.as_ref().unchecked_ref());
    forever.forget();
}

/// The ids of the site's tabs open now (this one included), from the Web Locks they hold;
/// `None` where the browser has no Web Locks (then no other tab's kept run is taken over).
pub async fn open_tabs() -> Option<Vec<String>> {
    let locks = locks()?;
    let query = Reflect::get(&locks, &"query".into())
        .ok()?
        .dyn_into::<Function>()
        .ok()?;
    let promise: Promise = query.call0(&locks).ok()?.dyn_into().ok()?;
    let snapshot = wasm_bindgen_futures::JsFuture::from(promise).await.ok()?;
    let held: Array = Reflect::get(&snapshot, &"held".into())
        .ok()?
        .dyn_into()
        .ok()?;
    Some(
        held.iter()
            .filter_map(|lock| Reflect::get(&lock, &"name".into()).ok()?.as_string())
            .filter_map(|name| name.strip_prefix(LOCK_PREFIX).map(str::to_string))
            .collect(),
    )
}
