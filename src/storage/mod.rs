//! What the browser keeps and the files that come and go: IndexedDB ([`idb`]), the working
//! dataset ([`work_store`]) shared with the site's other tabs ([`tabs`], [`tab_merge`]), finished inoculations ([`inoculation_store`]), the session
//! restored after a reload ([`session`]), dataset files in and out ([`files`]), and downloads
//! ([`download`]).

pub mod download;
pub mod files;
pub mod idb;
pub mod inoculation_store;
pub mod session;
pub mod tab_merge;
pub mod tabs;
pub mod work_store;
