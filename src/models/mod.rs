//! Models into the worker: checkpoint files, URLs and the Hub ([`load`]), the bundled demo
//! models ([`bundled`]), whether a checkpoint fits the worker's memory ([`fit`]), the model
//! bar's backend and precision choices ([`device_choice`]), scores files imported as models
//! ([`scores`]), and what the page does when the worker dies: the models marked lost and
//! reloaded from where they came ([`crash`]).

pub mod bundled;
pub mod crash;
pub mod device_choice;
pub mod fit;
pub mod load;
pub mod scores;
