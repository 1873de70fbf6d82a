//! Models into the worker: checkpoint files, URLs and the Hub ([`load`]), the bundled demo
//! models ([`bundled`]), whether a checkpoint fits the worker's memory ([`fit`]), and the
//! model bar's backend and precision choices ([`device_choice`]), and scores files imported as
//! models ([`scores`]).

pub mod bundled;
pub mod device_choice;
pub mod fit;
pub mod load;
pub mod scores;
