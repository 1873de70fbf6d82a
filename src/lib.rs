//! The tabprobe web app (Leptos, client-side rendered): views, components and app state.
//! Everything scientific lives in `tabprobe-core`; the model runs in the worker
//! (`tabprobe-worker`); this crate only shows what they compute.
//!
//! Its rooms, each a folder (docs/ARCHITECTURE.md has the longer map):
//!
//! - [`app`], [`route`], [`state`], [`timing`]: the page itself — the root component, the
//!   `#/` routes, the app state in Leptos context, and timing marks for the tests.
//! - [`models`]: loading checkpoints (files, URLs, the Hub, the bundled demo), whether they
//!   fit, and the model bar's backend and precision choices.
//! - [`worker`]: the page's side of the model worker — requests and replies, its health, and
//!   what a crash lost.
//! - [`runs`]: probe runs and inoculation jobs — starting, pacing, keeping a run in progress
//!   so it survives a reload, and the finished runs.
//! - [`storage`]: what the browser keeps (IndexedDB, the working dataset, the session) and
//!   dataset files in and out.
//! - [`views`] (one per route) and [`components`] (the parts they are made of).

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
