//! Which shard an example belongs to, and which shard this process is (`--shard i/n` or a
//! scheduler's environment variables).
//!
//! An example goes to shard `fnv1a64(id) mod n + 1`, where `fnv1a64` is 64-bit FNV-1a over the
//! id's UTF-8 bytes. It depends on the id alone, so adding or removing examples never moves
//! the others, and it is plain `u64` arithmetic, so native code and wasm32 agree (std's
//! `DefaultHasher` is not stable across releases, so it is not used).

/// FNV-1a 64 offset basis.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a 64 prime.
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// 64-bit FNV-1a of `bytes`: start at the offset basis; for each byte, xor it in, then
/// multiply by the prime (wrapping).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(FNV_OFFSET, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(FNV_PRIME)
    })
}

/// The 1-based shard of an example id among `count` shards (`count` 0 is read as 1).
pub fn shard_of(example_id: &str, count: usize) -> usize {
    let n = count.max(1) as u64;
    // `n` fits in usize, so the remainder does too.
    (fnv1a64(example_id.as_bytes()) % n) as usize + 1
}

/// One shard of `count`: `index` is 1-based (`1..=count`), as nextest, Playwright and node
/// number theirs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardSpec {
    /// 1-based.
    pub index: usize,
    /// How many shards the run is cut into (at least 1).
    pub count: usize,
}

/// Where the shard came from, for the message a run prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShardSource {
    /// `--shard i/n`.
    Flag,
    /// `SLURM_ARRAY_TASK_ID` (0-based, less `SLURM_ARRAY_TASK_MIN` when set) and
    /// `SLURM_ARRAY_TASK_COUNT`.
    Slurm,
    /// `JOB_COMPLETION_INDEX` (0-based) and `--shards n`.
    KubernetesIndexedJob,
}

/// Why `i/n` names no shard.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutOfRange {
    /// `n` is 0.
    #[error("n is 0")]
    NoShards,
    /// `i` is 0 or above `n`.
    #[error("i is {index}, outside 1..={count}")]
    Outside {
        /// The 1-based index asked for.
        index: usize,
        /// The number of shards.
        count: usize,
    },
}

/// Why this process cannot tell which shard it is: the flag, the scheduler's variables or
/// their combination, each named as the user wrote it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// `--shard` is not `i/n` with `1 ≤ i ≤ n`.
    #[error("--shard {text:?}: {why}; expected i/n with 1 ≤ i ≤ n, e.g. 2/8")]
    Flag {
        /// What was given.
        text: String,
        /// What is wrong with it.
        why: String,
    },
    /// A scheduler's variable is not a whole number.
    #[error("{name}={value:?} is not a whole number")]
    NotANumber {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
    },
    /// Two sources give different shard counts.
    #[error("{first} and --shards {shards} disagree on the number of shards")]
    Disagree {
        /// The other source, as written (`--shard 1/3`, `SLURM_ARRAY_TASK_COUNT=3`).
        first: String,
        /// `--shards`.
        shards: usize,
    },
    /// Slurm's task id is below its array's first task.
    #[error("SLURM_ARRAY_TASK_ID={id} is below SLURM_ARRAY_TASK_MIN={min}")]
    SlurmBelowMin {
        /// `SLURM_ARRAY_TASK_ID`.
        id: usize,
        /// `SLURM_ARRAY_TASK_MIN`.
        min: usize,
    },
    /// Slurm's task is not one of the array's shards.
    #[error(
        "SLURM_ARRAY_TASK_ID={id} (0-based task {zero_based}) of SLURM_ARRAY_TASK_COUNT={count}: \
         {why}; give the array as --array=0-{last} (one task per shard, no step)",
        last = count.saturating_sub(1)
    )]
    SlurmTask {
        /// `SLURM_ARRAY_TASK_ID`.
        id: usize,
        /// The id less `SLURM_ARRAY_TASK_MIN`.
        zero_based: usize,
        /// `SLURM_ARRAY_TASK_COUNT`.
        count: usize,
        /// Why it names no shard.
        why: OutOfRange,
    },
    /// A Slurm task id without the array's size.
    #[error(
        "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not; run as a Slurm job array \
         (--array=0-<n-1>) or give --shard i/n"
    )]
    SlurmWithoutCount,
    /// The Kubernetes index is not one of `--shards`.
    #[error(
        "JOB_COMPLETION_INDEX={index} (0-based) with --shards {shards}: {why}; set the Job's \
         completions to {shards}"
    )]
    KubernetesIndex {
        /// `JOB_COMPLETION_INDEX`.
        index: usize,
        /// `--shards`.
        shards: usize,
        /// Why it names no shard.
        why: OutOfRange,
    },
    /// A Kubernetes index without `--shards`.
    #[error(
        "JOB_COMPLETION_INDEX={index} is set but --shards is not: give --shards n (the Job's \
         completions) so the index can name a shard"
    )]
    KubernetesWithoutShards {
        /// `JOB_COMPLETION_INDEX` as set.
        index: String,
    },
    /// `--shards` with no scheduler to say which shard this is.
    #[error(
        "--shards {shards} needs JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) or Slurm's \
         array variables; outside them give --shard i/{shards}"
    )]
    ShardsWithoutIndex {
        /// `--shards`.
        shards: usize,
    },
}

impl ShardSpec {
    /// Parses `i/n` (1-based `i`, `1 ≤ i ≤ n`).
    pub fn parse(text: &str) -> Result<ShardSpec, ShardError> {
        let bad = |why: String| ShardError::Flag {
            text: text.to_string(),
            why,
        };
        let (i, n) = text.split_once('/').ok_or_else(|| bad("no '/'".into()))?;
        let index: usize = i
            .trim()
            .parse()
            .map_err(|_| bad("i is not a whole number".into()))?;
        let count: usize = n
            .trim()
            .parse()
            .map_err(|_| bad("n is not a whole number".into()))?;
        ShardSpec::new(index, count).map_err(|why| bad(why.to_string()))
    }

    /// Checks `1 ≤ index ≤ count`.
    pub fn new(index: usize, count: usize) -> Result<ShardSpec, OutOfRange> {
        if count == 0 {
            return Err(OutOfRange::NoShards);
        }
        if index == 0 || index > count {
            return Err(OutOfRange::Outside { index, count });
        }
        Ok(ShardSpec { index, count })
    }

    /// Whether the example with this id is in this shard.
    pub fn holds(&self, example_id: &str) -> bool {
        shard_of(example_id, self.count) == self.index
    }

    /// The shard this process runs: `--shard i/n` when given; else Slurm's
    /// `SLURM_ARRAY_TASK_ID` + `SLURM_ARRAY_TASK_COUNT` (the id is 0-based: `--array=0-<n-1>`;
    /// `SLURM_ARRAY_TASK_MIN`, when set, is subtracted so `--array=1-<n>` works too); else
    /// Kubernetes' `JOB_COMPLETION_INDEX` (0-based) with `shards` (`--shards n`) as the
    /// total. `None`: not sharded. `env` reads a variable (an empty value counts as unset).
    pub fn resolve(
        flag: Option<&str>,
        shards: Option<usize>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<(ShardSpec, ShardSource)>, ShardError> {
        let var = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        let number = |name: &'static str, value: String| -> Result<usize, ShardError> {
            value
                .trim()
                .parse::<usize>()
                .map_err(|_| ShardError::NotANumber { name, value })
        };
        if let Some(text) = flag {
            let spec = ShardSpec::parse(text)?;
            if let Some(n) = shards.filter(|&n| n != spec.count) {
                return Err(ShardError::Disagree {
                    first: format!("--shard {text}"),
                    shards: n,
                });
            }
            return Ok(Some((spec, ShardSource::Flag)));
        }
        match (var("SLURM_ARRAY_TASK_ID"), var("SLURM_ARRAY_TASK_COUNT")) {
            (Some(id), Some(count)) => {
                let id = number("SLURM_ARRAY_TASK_ID", id)?;
                let count = number("SLURM_ARRAY_TASK_COUNT", count)?;
                let min = match var("SLURM_ARRAY_TASK_MIN") {
                    Some(m) => number("SLURM_ARRAY_TASK_MIN", m)?,
                    None => 0,
                };
                let zero_based = id
                    .checked_sub(min)
                    .ok_or(ShardError::SlurmBelowMin { id, min })?;
                if let Some(n) = shards.filter(|&n| n != count) {
                    return Err(ShardError::Disagree {
                        first: format!("SLURM_ARRAY_TASK_COUNT={count}"),
                        shards: n,
                    });
                }
                let spec =
                    ShardSpec::new(zero_based + 1, count).map_err(|why| ShardError::SlurmTask {
                        id,
                        zero_based,
                        count,
                        why,
                    })?;
                return Ok(Some((spec, ShardSource::Slurm)));
            }
            (Some(_), None) => return Err(ShardError::SlurmWithoutCount),
            _ => {}
        }
        match (var("JOB_COMPLETION_INDEX"), shards) {
            (Some(i), Some(n)) => {
                let i = number("JOB_COMPLETION_INDEX", i)?;
                let spec = ShardSpec::new(i + 1, n).map_err(|why| ShardError::KubernetesIndex {
                    index: i,
                    shards: n,
                    why,
                })?;
                Ok(Some((spec, ShardSource::KubernetesIndexedJob)))
            }
            (Some(index), None) => Err(ShardError::KubernetesWithoutShards { index }),
            (None, Some(shards)) => Err(ShardError::ShardsWithoutIndex { shards }),
            (None, None) => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_matches_the_published_test_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn parse_is_one_based_and_bounded() {
        assert_eq!(
            ShardSpec::parse("2/8"),
            Ok(ShardSpec { index: 2, count: 8 })
        );
        for bad in ["0/3", "4/3", "1/0", "3", "a/3", "1/b"] {
            let e = ShardSpec::parse(bad).unwrap_err();
            assert!(matches!(e, ShardError::Flag { .. }), "{bad}: {e}");
            assert!(e.to_string().contains("expected i/n"), "{bad}: {e}");
        }
    }

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn the_flag_wins_and_schedulers_are_zero_based() {
        let slurm = [
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ];
        let got = ShardSpec::resolve(Some("3/3"), None, env(&slurm)).unwrap();
        assert_eq!(
            got,
            Some((ShardSpec { index: 3, count: 3 }, ShardSource::Flag))
        );
        let got = ShardSpec::resolve(None, None, env(&slurm)).unwrap();
        assert_eq!(
            got,
            Some((ShardSpec { index: 1, count: 3 }, ShardSource::Slurm))
        );
        let from_one = [
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
        ];
        let got = ShardSpec::resolve(None, None, env(&from_one)).unwrap();
        assert_eq!(
            got,
            Some((ShardSpec { index: 3, count: 3 }, ShardSource::Slurm))
        );
        let k8s = [("JOB_COMPLETION_INDEX", "6")];
        let got = ShardSpec::resolve(None, Some(7), env(&k8s)).unwrap();
        assert_eq!(
            got,
            Some((
                ShardSpec { index: 7, count: 7 },
                ShardSource::KubernetesIndexedJob
            ))
        );
        assert_eq!(ShardSpec::resolve(None, None, env(&[])).unwrap(), None);
    }

    #[test]
    fn incomplete_or_contradictory_settings_are_named() {
        let err = |flag, shards, vars| {
            let e = ShardSpec::resolve(flag, shards, env(vars)).unwrap_err();
            (e.to_string(), e)
        };
        let (e, typed) = err(None, None, &[("JOB_COMPLETION_INDEX", "1")]);
        assert!(e.contains("--shards"), "{e}");
        assert!(matches!(typed, ShardError::KubernetesWithoutShards { .. }));
        let (e, typed) = err(None, Some(3), &[("JOB_COMPLETION_INDEX", "3")]);
        assert!(
            e.contains("JOB_COMPLETION_INDEX=3") && e.contains("outside 1..=3"),
            "{e}"
        );
        assert_eq!(
            typed,
            ShardError::KubernetesIndex {
                index: 3,
                shards: 3,
                why: OutOfRange::Outside { index: 4, count: 3 }
            }
        );
        let (e, typed) = err(None, None, &[("SLURM_ARRAY_TASK_ID", "1")]);
        assert!(e.contains("SLURM_ARRAY_TASK_COUNT"), "{e}");
        assert_eq!(typed, ShardError::SlurmWithoutCount);
        let (e, _) = err(Some("1/3"), Some(4), &[]);
        assert_eq!(
            e,
            "--shard 1/3 and --shards 4 disagree on the number of shards"
        );
        let (e, typed) = err(None, Some(4), &[]);
        assert!(e.contains("JOB_COMPLETION_INDEX"), "{e}");
        assert_eq!(typed, ShardError::ShardsWithoutIndex { shards: 4 });
    }
}
