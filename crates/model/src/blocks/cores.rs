//! Keeping the thread pool's other cores awake through a forward on the host, natively
//! (`fast-cpu`), and sharing a step's pieces among them as each core comes free.
//!
//! A forward on the host is some 120 short parallel steps (six products, attention, two
//! LayerNorms and GELU a layer). Between two of them rayon's idle workers go to sleep, and
//! waking one is slow on a virtual machine, whose idle virtual CPU the host parks: the next
//! step's second half then waits, or the first core does both (seen in timed calls: a product
//! at a pair of 128 tokens in 4.7 ms instead of 2.2). onnxruntime's pool spins between its
//! steps for the same reason. So while the layers run, every other worker runs a loop that
//! takes the pool's pending work as soon as it appears, and otherwise spins.

/// How long a worker's loop looks for work that does not come before it stops.
#[cfg(feature = "fast-cpu")]
const MAX_IDLE: std::time::Duration = std::time::Duration::from_millis(20);

/// `work()` run on one of rayon's workers while each other worker looks for pending work in a
/// loop, until `work` returns.
#[cfg(feature = "fast-cpu")]
pub fn with_cores_awake<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    use std::sync::atomic::{AtomicBool, Ordering};
    let others = rayon::current_num_threads().saturating_sub(1);
    if others == 0 {
        return work();
    }
    let done = AtomicBool::new(false);
    // `scope` runs its body on a worker (moving there from any other thread); the loops go to
    // that worker's queue, for the others to take.
    rayon::scope(|scope| {
        let owner = rayon::current_thread_index();
        for _ in 0..others {
            let done = &done;
            scope.spawn(move |_| {
                // A worker waiting inside `work` may take a loop back from its own queue; it
                // must not spin there, or `work` would never finish.
                if rayon::current_thread_index() == owner {
                    return;
                }
                let mut idle_since = None;
                while !done.load(Ordering::Acquire) {
                    if rayon::yield_now() == Some(rayon::Yield::Executed) {
                        idle_since = None;
                        continue;
                    }
                    // Nothing to take for a while: stop. A forward's steps follow each other
                    // within a few milliseconds; a loop that found nothing for longer may sit
                    // on top of work it interrupted (a worker waiting inside another forward's
                    // step may take this loop), which must resume: with two forwards at once,
                    // two such loops could otherwise wait on each other for ever (possible by
                    // rayon's rules, not seen in the tests).
                    let now = std::time::Instant::now();
                    if now.duration_since(*idle_since.get_or_insert(now)) > MAX_IDLE {
                        break;
                    }
                    std::hint::spin_loop();
                }
            });
        }
        let result = work();
        done.store(true, Ordering::Release);
        result
    })
}

/// `work()`, where there is no thread pool.
#[cfg(not(feature = "fast-cpu"))]
pub fn with_cores_awake<R>(work: impl FnOnce() -> R) -> R {
    work()
}

/// `f(0)`, …, `f(count - 1)`, in order, computed by every core of the pool, each core taking
/// the next index as soon as it is free, so that a core that runs slower for a while (on this
/// VM one core's half of a product ran 30–50 % longer than the other's at times, by per-thread
/// timers, 2026-11-30) does fewer pieces instead of holding up the step. Every index is
/// claimed once, so every slot is filled; a panic in `f` comes out of the scope.
#[cfg(feature = "fast-cpu")]
pub fn each_claimed<T: Send + Sync>(count: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::OnceLock;
    let next = AtomicUsize::new(0);
    let slots: Vec<OnceLock<T>> = (0..count).map(|_| OnceLock::new()).collect();
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(slot) = slots.get(i) else { break };
        let _ = slot.set(f(i));
    };
    rayon::in_place_scope(|scope| {
        for _ in 1..rayon::current_num_threads().min(count) {
            scope.spawn(|_| work());
        }
        work();
    });
    slots.into_iter().filter_map(OnceLock::into_inner).collect()
}

/// `f((i, item))` for each of `items`, the cores taking them as [`each_claimed`] does: for work
/// that owns what it is given (a product's piece gets its parts of the outputs to write).
#[cfg(feature = "fast-cpu")]
pub fn each_claimed_of<I: Send>(items: Vec<I>, f: impl Fn((usize, I)) + Sync) {
    use std::sync::Mutex;
    let slots: Vec<Mutex<Option<I>>> = items.into_iter().map(|i| Mutex::new(Some(i))).collect();
    each_claimed(slots.len(), |i| {
        // Each slot is taken once, by the one core that claimed its index; a poisoned lock
        // means `f` panicked on another item, and that panic comes out of the scope.
        let item = match slots[i].lock() {
            Ok(mut slot) => slot.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        if let Some(item) = item {
            f((i, item));
        }
    });
}

#[cfg(all(test, feature = "fast-cpu"))]
mod tests {
    use super::*;
    use rayon::prelude::*;

    /// Many parallel steps, as a forward has.
    fn steps() -> u64 {
        (0..200u64)
            .map(|step| {
                (0..10_000u64)
                    .into_par_iter()
                    .map(|i| i * step)
                    .sum::<u64>()
            })
            .sum()
    }

    #[test]
    fn claimed_pieces_come_back_in_order_each_computed_once() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        for count in [0, 1, 2, 3, 17, 200] {
            let calls = AtomicUsize::new(0);
            let got = each_claimed(count, |i| {
                calls.fetch_add(1, Ordering::Relaxed);
                // Uneven pieces, so the cores finish them out of order.
                std::thread::sleep(std::time::Duration::from_micros((i % 3) as u64 * 200));
                i * i
            });
            assert_eq!(got, (0..count).map(|i| i * i).collect::<Vec<_>>());
            assert_eq!(calls.into_inner(), count);
        }
    }

    #[test]
    fn claimed_items_each_go_once_with_their_index() {
        for count in [0, 1, 5, 64] {
            let mut outs = vec![0usize; count];
            // Each item is a place to write: the work owns what it is given.
            let items: Vec<&mut usize> = outs.iter_mut().collect();
            each_claimed_of(items, |(i, out)| *out += i * 3 + 1);
            assert_eq!(outs, (0..count).map(|i| i * 3 + 1).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_core_held_up_does_fewer_pieces() {
        // Piece 0 takes 300 ms, the other 40 take 1 ms each: the core that took piece 0 is
        // held up while the other takes the rest. A pool of its own, so that other tests'
        // work does not occupy its second core.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build();
        let Ok(pool) = pool else {
            panic!("a pool of two threads could not be built")
        };
        let done_by = std::sync::Mutex::new(vec![None; 41]);
        let got = pool.install(|| {
            each_claimed(41, |i| {
                let ms = if i == 0 { 300 } else { 1 };
                std::thread::sleep(std::time::Duration::from_millis(ms));
                if let Ok(mut done_by) = done_by.lock() {
                    done_by[i] = rayon::current_thread_index();
                }
                i
            })
        });
        assert_eq!(got, (0..41).collect::<Vec<_>>());
        let done_by = done_by.into_inner().unwrap_or_default();
        let by_slow = done_by.iter().filter(|&&t| t == done_by[0]).count() - 1;
        assert!(
            by_slow < 10,
            "the core held up by piece 0 also did {by_slow} of the other 40: {done_by:?}"
        );
    }

    #[test]
    fn the_work_gives_its_own_result() {
        assert_eq!(with_cores_awake(steps), steps());
        assert_eq!(with_cores_awake(|| 7), 7);
    }

    /// Four forwards at once from four threads, each keeping the pool's workers looping: all
    /// finish, each with its own result. (Two loops waiting on each other, which the idle
    /// limit guards against, did not happen here even without the limit: 3 runs of 20
    /// forwards, 2026-11-30; the test holds the rest.)
    #[test]
    fn forwards_at_once_all_finish() {
        let (send, receive) = std::sync::mpsc::channel();
        for _ in 0..4 {
            let send = send.clone();
            std::thread::spawn(move || {
                let got = (0..5).map(|_| with_cores_awake(steps)).collect::<Vec<_>>();
                let _ = send.send(got);
            });
        }
        let want = steps();
        for _ in 0..4 {
            let got = receive
                .recv_timeout(std::time::Duration::from_secs(60))
                .expect("every forward finishes within a minute");
            assert!(got.iter().all(|&g| g == want));
        }
    }
}
