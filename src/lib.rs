//! The tabprobe web app (Leptos, client-side rendered): views, components and app state.
//! Everything scientific lives in `tabprobe-core`; the model runs in the worker
//! (`tabprobe-worker`); this crate only shows what they compute.
//!
//! Its rooms, in their one order: each names only the rooms above it in this list
//! (`tests/architecture/page_order.test.mjs` keeps it so; docs/ARCHITECTURE.md has the longer map).
//!
//! 1. [`timing`], [`route`]: timing marks for the tests, and the `#/` routes.
//! 2. [`worker`]: the page's side of the model worker — requests and replies, its health,
//!    the watch.
//! 3. [`state`]: the app state in Leptos context, and the scoring speeds measured.
//! 4. [`storage`]: what the browser keeps (IndexedDB, the working dataset, the session) and
//!    dataset files in and out.
//! 5. [`models`]: loading checkpoints (files, URLs, the Hub, the bundled demo, scores files),
//!    whether they fit, the model bar's choices, and reloading them after a crash.
//! 6. [`runs`]: probe runs and inoculation jobs — starting, keeping a run in progress so it
//!    survives a reload, and the finished runs.
//! 7. [`components`], then [`views`] (one per route) made of them, then [`app`], the root.

pub mod app;
pub mod components;
pub mod models;
pub mod route;
pub mod runs;
pub mod state;
pub mod storage;
pub mod timing;
pub mod views;
pub mod worker;
