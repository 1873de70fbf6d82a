//! Long lists built a chunk per task: the first chunk with the view, one more in each task
//! after, so no task of the page builds a thousand rows or options at once.

use std::ops::Range;

use leptos::prelude::*;
use leptos::task::spawn_local;

/// The views of `count` things, `per_task` at a time: `make(range)` builds the views of the
/// things in `range`; the first range now, the next in each task after (until the owner is
/// gone). Each chunk is built once.
pub fn in_chunks<V>(
    count: usize,
    per_task: usize,
    make: impl Fn(Range<usize>) -> V + Clone + Send + Sync + 'static,
) -> Vec<impl IntoView>
where
    V: IntoView + 'static,
{
    let per_task = per_task.max(1);
    let chunks = count.div_ceil(per_task);
    // Chunks shown: the first now, one more per task.
    let shown = RwSignal::new(1usize);
    if chunks > 1 {
        spawn_local(async move {
            for k in 2..=chunks {
                gloo::timers::future::TimeoutFuture::new(0).await;
                if shown.try_set(k).is_some() {
                    return; // the view was closed
                }
            }
        });
    }
    (0..chunks)
        .map(|k| {
            // Changes once, from false to true: the chunk is built once.
            let on = Memo::new(move |_| shown.get() > k);
            let make = make.clone();
            move || {
                on.get()
                    .then(|| make(k * per_task..((k + 1) * per_task).min(count)))
            }
        })
        .collect()
}
