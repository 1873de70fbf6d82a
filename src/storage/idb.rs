//! The one IndexedDB wrapper of the page (database `tabprobe`): opening it (creating the
//! object stores, giving way to another tab's upgrade), and reads and writes that resolve only
//! when the browser says they are done. A write is done when its *transaction* completes
//! (`oncomplete`), not when a request succeeds: the data can still be lost (quota, abort)
//! between the two. Used by [`crate::runs::store`] (finished runs), [`crate::storage::work_store`]
//! (the working dataset and drafts) and [`crate::storage::inoculation_store`].

use js_sys::{Array, Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbOpenDbRequest, IdbRequest, IdbTransaction, IdbTransactionMode};

/// The database's name (one per site origin).
pub const DB_NAME: &str = "tabprobe";
/// Version 1 held `meta` and `runs`; version 2 adds `work`; version 3 `inoculations`.
const DB_VERSION: u32 = 3;
/// Object store: the small list entry of each saved run, keyed by run id.
pub const META: &str = "meta";
/// Object store: each saved run, keyed by run id (see [`crate::runs::store`] for its layout).
pub const RUNS: &str = "runs";
/// Object store: the working dataset and the editors' drafts (see [`crate::storage::work_store`]).
pub const WORK: &str = "work";
/// Object store: inoculation results as JSON text (see [`crate::storage::inoculation_store`]).
pub const INOCULATIONS: &str = "inoculations";

const STORES: [&str; 4] = [META, RUNS, WORK, INOCULATIONS];

/// A storage failure, worded for the user. `quota` is set when the browser refused for lack
/// of space (`QuotaExceededError`), so callers can offer a download instead.
#[derive(Debug, Clone, PartialEq)]
pub struct StoreError {
    /// What happened and what to do.
    pub message: String,
    /// The browser's storage for this site is full.
    pub quota: bool,
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<StoreError> for String {
    fn from(e: StoreError) -> String {
        e.message
    }
}

/// The `name` of a DOMException (or JS error), if it has one.
fn error_name(e: &JsValue) -> Option<String> {
    js_sys::Reflect::get(e, &"name".into())
        .ok()
        .and_then(|n| n.as_string())
}

/// Words a browser error for the user; `what` says what was being done.
pub fn js_err(what: &str, e: &JsValue) -> StoreError {
    let name = error_name(e).unwrap_or_default();
    let detail = e
        .as_string()
        .or_else(|| {
            js_sys::Reflect::get(e, &"message".into())
                .ok()
                .and_then(|m| m.as_string())
        })
        .unwrap_or_else(|| format!("{e:?}"));
    if name == "QuotaExceededError" {
        // Chrome's abort of a transaction over quota carries no message.
        let detail = if detail.trim().is_empty() {
            String::new()
        } else {
            format!(": {detail}")
        };
        return StoreError {
            message: format!(
                "browser storage (IndexedDB): {what}: the browser's storage for this site is full (QuotaExceededError{detail}); free space by deleting saved runs or clearing this site's data"
            ),
            quota: true,
        };
    }
    StoreError {
        message: format!("browser storage (IndexedDB): {what}: {detail}"),
        quota: false,
    }
}

fn plain(what: &str, detail: &str) -> StoreError {
    js_err(what, &JsValue::from_str(detail))
}

/// Resolves with the request's result once it succeeds (for reads and for opening).
async fn request_done(request: &IdbRequest, what: &str) -> Result<JsValue, StoreError> {
    let req = request.clone();
    let promise = Promise::new(&mut |resolve: Function, reject: Function| {
        let ok_req = req.clone();
        let ok = Closure::once_into_js(move |_: web_sys::Event| {
            let _ = resolve.call1(&JsValue::NULL, &ok_req.result().unwrap_or(JsValue::NULL));
        });
        let err_req = req.clone();
        let err = Closure::once_into_js(move |_: web_sys::Event| {
            let e = err_req
                .error()
                .ok()
                .flatten()
                .map(JsValue::from)
                .unwrap_or_else(|| JsValue::from_str("request failed"));
            let _ = reject.call1(&JsValue::NULL, &e);
        });
        req.set_onsuccess(Some(ok.unchecked_ref()));
        req.set_onerror(Some(err.unchecked_ref()));
    });
    JsFuture::from(promise).await.map_err(|e| js_err(what, &e))
}

/// Resolves once `tx` completes; rejects when it errs or aborts (a quota failure aborts the
/// transaction with `QuotaExceededError`).
async fn transaction_done(tx: &IdbTransaction, what: &str) -> Result<(), StoreError> {
    let t = tx.clone();
    let promise = Promise::new(&mut |resolve: Function, reject: Function| {
        let ok = Closure::once_into_js(move |_: web_sys::Event| {
            let _ = resolve.call0(&JsValue::NULL);
        });
        let failed = |reject: Function, t: IdbTransaction| {
            Closure::once_into_js(move |_: web_sys::Event| {
                let e = t
                    .error()
                    .map(JsValue::from)
                    .unwrap_or_else(|| JsValue::from_str("the transaction was aborted"));
                let _ = reject.call1(&JsValue::NULL, &e);
            })
        };
        // Both can fire for one failure; the promise settles once.
        let err = failed(reject.clone(), t.clone());
        let abort = failed(reject, t.clone());
        t.set_oncomplete(Some(ok.unchecked_ref()));
        t.set_onerror(Some(err.unchecked_ref()));
        t.set_onabort(Some(abort.unchecked_ref()));
    });
    JsFuture::from(promise)
        .await
        .map(|_| ())
        .map_err(|e| js_err(what, &e))
}

/// Opens the database, creating missing stores. A version upgrade blocked by another tab that
/// still has an older version open is reported (the user closes or reloads that tab); our own
/// connections close as soon as another tab asks to upgrade, so we never block one.
async fn open() -> Result<IdbDatabase, StoreError> {
    let factory = web_sys::window()
        .ok_or_else(|| plain("unavailable", "no window"))?
        .indexed_db()
        .map_err(|e| js_err("unavailable", &e))?
        .ok_or_else(|| {
            plain(
                "unavailable",
                "this browser offers no IndexedDB (private mode?)",
            )
        })?;
    let request: IdbOpenDbRequest = factory
        .open_with_u32(DB_NAME, DB_VERSION)
        .map_err(|e| js_err("cannot open", &e))?;
    let upgrade_req = request.clone();
    let upgrade = Closure::once_into_js(move |_: web_sys::Event| {
        if let Ok(db) = upgrade_req
            .result()
            .and_then(|r| r.dyn_into::<IdbDatabase>())
        {
            let names = db.object_store_names();
            for store in STORES {
                if !names.contains(store) {
                    let _ = db.create_object_store(store);
                }
            }
        }
    });
    request.set_onupgradeneeded(Some(upgrade.unchecked_ref()));
    let opened = request_done(&request, "cannot open");
    let blocked = blocked_by_other_tab(&request);
    futures::pin_mut!(opened, blocked);
    let db = match futures::future::select(opened, blocked).await {
        futures::future::Either::Left((r, _)) => r?,
        futures::future::Either::Right((e, _)) => return Err(e),
    };
    let db = db
        .dyn_into::<IdbDatabase>()
        .map_err(|_| plain("cannot open", "not a database"))?;
    let closing = db.clone();
    let on_version_change = Closure::<dyn Fn(web_sys::Event)>::new(move |_| closing.close());
    db.set_onversionchange(Some(on_version_change.as_ref().unchecked_ref()));
    on_version_change.forget();
    Ok(db)
}

/// Settles with an error when the open request reports `blocked` (never otherwise).
async fn blocked_by_other_tab(request: &IdbOpenDbRequest) -> StoreError {
    let req = request.clone();
    let promise = Promise::new(&mut |resolve: Function, _reject: Function| {
        let on_blocked = Closure::once_into_js(move |_: web_sys::Event| {
            let _ = resolve.call0(&JsValue::NULL);
        });
        req.set_onblocked(Some(on_blocked.unchecked_ref()));
    });
    let _ = JsFuture::from(promise).await;
    plain(
        "blocked",
        "another tabprobe tab keeps an older version of this site's storage open; close or reload the other tabs, then try again",
    )
}

fn transaction(
    db: &IdbDatabase,
    stores: &[&str],
    mode: IdbTransactionMode,
    what: &str,
) -> Result<IdbTransaction, StoreError> {
    let names = Array::new();
    for s in stores {
        names.push(&JsValue::from_str(s));
    }
    db.transaction_with_str_sequence_and_mode(&names, mode)
        .map_err(|e| js_err(what, &e))
}

/// Every text key that starts with `prefix` sorts between it and prefix + U+FFFF.
fn prefix_range(prefix: &str, what: &str) -> Result<web_sys::IdbKeyRange, StoreError> {
    web_sys::IdbKeyRange::bound(
        &JsValue::from_str(prefix),
        &JsValue::from_str(&format!("{prefix}\u{ffff}")),
    )
    .map_err(|e| js_err(what, &e))
}

/// Writes every `(store, key, text)` in one transaction and resolves when it completes:
/// all are kept, or none. `what` words a failure.
pub async fn put_all(writes: &[(&str, &str, &str)], what: &str) -> Result<(), StoreError> {
    let values: Vec<(&str, &str, JsValue)> = writes
        .iter()
        .map(|&(store, key, text)| (store, key, JsValue::from_str(text)))
        .collect();
    put_values(&values, what).await
}

/// Writes every `(store, key, value)` in one transaction (values the browser can clone:
/// text, arrays, byte arrays) and resolves when it completes: all are kept, or none.
pub async fn put_values(writes: &[(&str, &str, JsValue)], what: &str) -> Result<(), StoreError> {
    let db = open().await?;
    let stores: Vec<&str> = writes.iter().map(|w| w.0).collect();
    let result = async {
        let tx = transaction(&db, &stores, IdbTransactionMode::Readwrite, what)?;
        for (store, key, value) in writes {
            let put = tx
                .object_store(store)
                .and_then(|s| s.put_with_key(value, &JsValue::from_str(key)));
            if let Err(e) = put {
                let _ = tx.abort();
                return Err(js_err(what, &e));
            }
        }
        transaction_done(&tx, what).await
    }
    .await;
    db.close();
    result
}

/// Writes every `(key, text)` of `writes` into `store` only while the text under `guard`
/// still equals `expected` (`None`: no entry) — the read and the writes in one transaction, so
/// no other tab can write in between (IndexedDB runs overlapping read-write transactions on
/// a store one after the other). `Ok(false)` when the guard had moved and nothing was
/// written. The writes are issued inside the read's success event, where the transaction is
/// certainly still active.
pub async fn put_if(
    store: &str,
    guard: &str,
    expected: Option<&str>,
    writes: &[(&str, &str)],
    what: &str,
) -> Result<bool, StoreError> {
    use std::cell::Cell;
    use std::rc::Rc;
    let db = open().await?;
    let result = async {
        let tx = transaction(&db, &[store], IdbTransactionMode::Readwrite, what)?;
        let s = tx.object_store(store).map_err(|e| js_err(what, &e))?;
        let read = s
            .get(&JsValue::from_str(guard))
            .map_err(|e| js_err(what, &e))?;
        // None: the read has not answered; Some(false): the guard moved; Some(true): written.
        let outcome: Rc<Cell<Option<bool>>> = Rc::new(Cell::new(None));
        let expected = expected.map(str::to_string);
        let writes: Vec<(String, String)> = writes
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let on_read = {
            let (outcome, read, s, tx) = (outcome.clone(), read.clone(), s.clone(), tx.clone());
            Closure::once_into_js(move |_: web_sys::Event| {
                let now = read.result().ok().and_then(|v| v.as_string());
                if now != expected {
                    outcome.set(Some(false));
                    let _ = tx.abort();
                    return;
                }
                for (key, text) in writes {
                    if s.put_with_key(&JsValue::from_str(&text), &JsValue::from_str(&key))
                        .is_err()
                    {
                        let _ = tx.abort();
                        return;
                    }
                }
                outcome.set(Some(true));
            })
        };
        read.set_onsuccess(Some(on_read.unchecked_ref()));
        match transaction_done(&tx, what).await {
            Ok(()) => Ok(outcome.get() == Some(true)),
            Err(_) if outcome.get() == Some(false) => Ok(false),
            Err(e) => Err(e),
        }
    }
    .await;
    db.close();
    result
}

/// The texts under `keys` in `store`, read in one transaction (so they are of one moment):
/// `None` where there is no entry or it is not text.
pub async fn get_texts(
    store: &str,
    keys: &[&str],
    what: &str,
) -> Result<Vec<Option<String>>, StoreError> {
    let db = open().await?;
    let result = async {
        let tx = transaction(&db, &[store], IdbTransactionMode::Readonly, what)?;
        let s = tx.object_store(store).map_err(|e| js_err(what, &e))?;
        let requests = keys
            .iter()
            .map(|k| s.get(&JsValue::from_str(k)).map_err(|e| js_err(what, &e)))
            .collect::<Result<Vec<_>, _>>()?;
        // All handlers are set before any read can answer (one poll of all of them).
        let answers =
            futures::future::join_all(requests.iter().map(|r| request_done(r, what))).await;
        answers
            .into_iter()
            .map(|a| a.map(|v| v.as_string()))
            .collect()
    }
    .await;
    db.close();
    result
}

/// Moves the entry `from` and every entry under `from/` to `to` and `to/…` in one
/// transaction (all move, or none); returns how many moved. The writes are issued inside the
/// read's success event, where the transaction is still active.
pub async fn move_entries(
    store: &str,
    from: &str,
    to: &str,
    what: &str,
) -> Result<usize, StoreError> {
    use std::cell::Cell;
    use std::rc::Rc;
    let db = open().await?;
    let result = async {
        let tx = transaction(&db, &[store], IdbTransactionMode::Readwrite, what)?;
        let s = tx.object_store(store).map_err(|e| js_err(what, &e))?;
        let range = prefix_range(from, what)?;
        let keys_req = s
            .get_all_keys_with_key(&range)
            .map_err(|e| js_err(what, &e))?;
        // Requests of a transaction answer in order: the keys are there when the values are.
        let values_req = s.get_all_with_key(&range).map_err(|e| js_err(what, &e))?;
        let moved = Rc::new(Cell::new(0usize));
        let on_values = {
            let (moved, keys_req, values_req, s, tx) = (
                moved.clone(),
                keys_req.clone(),
                values_req.clone(),
                s.clone(),
                tx.clone(),
            );
            let (from, to) = (from.to_string(), to.to_string());
            Closure::once_into_js(move |_: web_sys::Event| {
                let (Ok(keys), Ok(values)) = (keys_req.result(), values_req.result()) else {
                    let _ = tx.abort();
                    return;
                };
                let (keys, values): (Array, Array) =
                    (keys.unchecked_into(), values.unchecked_into());
                for (key, value) in keys.iter().zip(values.iter()) {
                    let Some(key) = key.as_string() else { continue };
                    let rest = match key.strip_prefix(&from) {
                        Some(rest) if rest.is_empty() || rest.starts_with('/') => rest.to_string(),
                        _ => continue,
                    };
                    let new_key = JsValue::from_str(&format!("{to}{rest}"));
                    if s.put_with_key(&value, &new_key).is_err()
                        || s.delete(&JsValue::from_str(&key)).is_err()
                    {
                        let _ = tx.abort();
                        return;
                    }
                    moved.set(moved.get() + 1);
                }
            })
        };
        values_req.set_onsuccess(Some(on_values.unchecked_ref()));
        transaction_done(&tx, what).await?;
        Ok(moved.get())
    }
    .await;
    db.close();
    result
}

/// The keys of `store` that start with `prefix`.
pub async fn keys_with_prefix(
    store: &str,
    prefix: &str,
    what: &str,
) -> Result<Vec<String>, StoreError> {
    let db = open().await?;
    let result = async {
        let tx = transaction(&db, &[store], IdbTransactionMode::Readonly, what)?;
        let range = prefix_range(prefix, what)?;
        let req = tx
            .object_store(store)
            .and_then(|s| s.get_all_keys_with_key(&range))
            .map_err(|e| js_err(what, &e))?;
        let keys: Array = request_done(&req, what).await?.unchecked_into();
        Ok(keys.iter().filter_map(|k| k.as_string()).collect())
    }
    .await;
    db.close();
    result
}

/// Deletes every `(store, key)` in one transaction.
pub async fn delete_all(entries: &[(&str, &str)], what: &str) -> Result<(), StoreError> {
    let db = open().await?;
    let stores: Vec<&str> = entries.iter().map(|e| e.0).collect();
    let result = async {
        let tx = transaction(&db, &stores, IdbTransactionMode::Readwrite, what)?;
        for (store, key) in entries {
            tx.object_store(store)
                .and_then(|s| s.delete(&JsValue::from_str(key)))
                .map_err(|e| js_err(what, &e))?;
        }
        transaction_done(&tx, what).await
    }
    .await;
    db.close();
    result
}

/// Deletes every entry of `store` whose key starts with `prefix` (text keys), in one
/// transaction.
pub async fn delete_prefix(store: &str, prefix: &str, what: &str) -> Result<(), StoreError> {
    let db = open().await?;
    let result = async {
        let tx = transaction(&db, &[store], IdbTransactionMode::Readwrite, what)?;
        // Every text key that starts with `prefix` sorts between it and prefix + U+FFFF.
        let range = prefix_range(prefix, what)?;
        tx.object_store(store)
            .and_then(|s| s.delete(&range))
            .map_err(|e| js_err(what, &e))?;
        transaction_done(&tx, what).await
    }
    .await;
    db.close();
    result
}

/// Every `(key, text)` of `store` whose key starts with `prefix` (entries that are not text
/// are left out).
pub async fn get_prefix_text(
    store: &str,
    prefix: &str,
    what: &str,
) -> Result<Vec<(String, String)>, StoreError> {
    let db = open().await?;
    let result = async {
        let tx = transaction(&db, &[store], IdbTransactionMode::Readonly, what)?;
        let range = prefix_range(prefix, what)?;
        let s = tx.object_store(store).map_err(|e| js_err(what, &e))?;
        let keys_req = s
            .get_all_keys_with_key(&range)
            .map_err(|e| js_err(what, &e))?;
        let values_req = s.get_all_with_key(&range).map_err(|e| js_err(what, &e))?;
        let (keys, values) = futures::future::join(
            request_done(&keys_req, what),
            request_done(&values_req, what),
        )
        .await;
        let (keys, values): (Array, Array) = (keys?.unchecked_into(), values?.unchecked_into());
        Ok(keys
            .iter()
            .zip(values.iter())
            .filter_map(|(k, v)| Some((k.as_string()?, v.as_string()?)))
            .collect())
    }
    .await;
    db.close();
    result
}

/// The value under `key` in `store`: `Ok(None)` when there is none, `Err` naming the key
/// when it is not text (nothing but this page writes there, but anything can).
pub async fn get_text(store: &str, key: &str, what: &str) -> Result<Option<String>, StoreError> {
    let Some(value) = get_value(store, key, what).await? else {
        return Ok(None);
    };
    value.as_string().map(Some).ok_or_else(|| {
        plain(
            what,
            &format!("the entry {store}/{key} is not text (it was not written by this page)"),
        )
    })
}

/// The value under `key` in `store`, whatever it is: `Ok(None)` when there is none.
pub async fn get_value(store: &str, key: &str, what: &str) -> Result<Option<JsValue>, StoreError> {
    let db = open().await?;
    let result = async {
        let tx = transaction(&db, &[store], IdbTransactionMode::Readonly, what)?;
        let req = tx
            .object_store(store)
            .and_then(|s| s.get(&JsValue::from_str(key)))
            .map_err(|e| js_err(what, &e))?;
        let value = request_done(&req, what).await?;
        Ok((!value.is_undefined() && !value.is_null()).then_some(value))
    }
    .await;
    db.close();
    result
}

/// Every `(key, value)` of `store`; a value that is not text comes back as `Err` (with its
/// key, so the entry can still be listed and deleted).
pub async fn get_all_text(
    store: &str,
    what: &str,
) -> Result<Vec<(String, Result<String, String>)>, StoreError> {
    let db = open().await?;
    let result = async {
        let tx = transaction(&db, &[store], IdbTransactionMode::Readonly, what)?;
        let s = tx.object_store(store).map_err(|e| js_err(what, &e))?;
        let keys_req = s.get_all_keys().map_err(|e| js_err(what, &e))?;
        let values_req = s.get_all().map_err(|e| js_err(what, &e))?;
        let keys: Array = request_done(&keys_req, what).await?.unchecked_into();
        let values: Array = request_done(&values_req, what).await?.unchecked_into();
        Ok(keys
            .iter()
            .zip(values.iter())
            .map(|(k, v)| {
                let key = k.as_string().unwrap_or_else(|| format!("{k:?}"));
                let value = v
                    .as_string()
                    .ok_or_else(|| "not text (it was not written by this page)".to_string());
                (key, value)
            })
            .collect())
    }
    .await;
    db.close();
    result
}
