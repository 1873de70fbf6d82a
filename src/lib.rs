//! The tabprobe web app (Leptos, client-side rendered): views, components and app state.
//! Everything scientific lives in `tabprobe-core`; this crate only shows it.

pub mod app;
pub mod bundled;
pub mod components;
pub mod device_choice;
pub mod download;
pub mod idb;
pub mod inoculation_jobs;
pub mod inoculation_store;
pub mod load;
pub mod model_fit;
pub mod model_load;
pub mod pace;
pub mod route;
pub mod run_drive;
pub mod run_keep;
pub mod run_keeper;
pub mod run_store;
pub mod runs;
pub mod session;
pub mod state;
pub mod timing;
pub mod views;
pub mod work_store;
pub mod worker_client;
pub mod worker_crash;
pub mod worker_health;
