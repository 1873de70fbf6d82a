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

impl ShardSpec {
    /// Parses `i/n` (1-based `i`, `1 ≤ i ≤ n`).
    pub fn parse(text: &str) -> Result<ShardSpec, String> {
        let bad =
            |why: &str| format!("--shard {text:?}: {why}; expected i/n with 1 ≤ i ≤ n, e.g. 2/8");
        let (i, n) = text.split_once('/').ok_or_else(|| bad("no '/'"))?;
        let index: usize = i
            .trim()
            .parse()
            .map_err(|_| bad("i is not a whole number"))?;
        let count: usize = n
            .trim()
            .parse()
            .map_err(|_| bad("n is not a whole number"))?;
        ShardSpec::new(index, count).map_err(|why| bad(&why))
    }

    /// Checks `1 ≤ index ≤ count`.
    pub fn new(index: usize, count: usize) -> Result<ShardSpec, String> {
        if count == 0 {
            return Err("n is 0".into());
        }
        if index == 0 || index > count {
            return Err(format!("i is {index}, outside 1..={count}"));
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
    ) -> Result<Option<(ShardSpec, ShardSource)>, String> {
        let var = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        let number = |name: &str, v: String| -> Result<usize, String> {
            v.trim()
                .parse::<usize>()
                .map_err(|_| format!("{name}={v:?} is not a whole number"))
        };
        if let Some(text) = flag {
            let spec = ShardSpec::parse(text)?;
            if let Some(n) = shards.filter(|&n| n != spec.count) {
                return Err(format!(
                    "--shard {text} and --shards {n} disagree on the number of shards"
                ));
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
                let zero_based = id.checked_sub(min).ok_or_else(|| {
                    format!("SLURM_ARRAY_TASK_ID={id} is below SLURM_ARRAY_TASK_MIN={min}")
                })?;
                if let Some(n) = shards.filter(|&n| n != count) {
                    return Err(format!(
                        "SLURM_ARRAY_TASK_COUNT={count} and --shards {n} disagree on the number of shards"
                    ));
                }
                let spec = ShardSpec::new(zero_based + 1, count).map_err(|why| {
                    format!(
                        "SLURM_ARRAY_TASK_ID={id} (0-based task {zero_based}) of SLURM_ARRAY_TASK_COUNT={count}: {why}; \
                         give the array as --array=0-{} (one task per shard, no step)",
                        count.saturating_sub(1)
                    )
                })?;
                return Ok(Some((spec, ShardSource::Slurm)));
            }
            (Some(_), None) => {
                return Err(
                    "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not; run as a Slurm job array (--array=0-<n-1>) or give --shard i/n".into(),
                )
            }
            _ => {}
        }
        match (var("JOB_COMPLETION_INDEX"), shards) {
            (Some(i), Some(n)) => {
                let i = number("JOB_COMPLETION_INDEX", i)?;
                let spec = ShardSpec::new(i + 1, n).map_err(|why| {
                    format!("JOB_COMPLETION_INDEX={i} (0-based) with --shards {n}: {why}; set the Job's completions to {n}")
                })?;
                Ok(Some((spec, ShardSource::KubernetesIndexedJob)))
            }
            (Some(i), None) => Err(format!(
                "JOB_COMPLETION_INDEX={i} is set but --shards is not: give --shards n (the Job's completions) so the index can name a shard"
            )),
            (None, Some(n)) => Err(format!(
                "--shards {n} needs JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) or Slurm's array variables; outside them give --shard i/{n}"
            )),
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
            assert!(e.contains("expected i/n"), "{bad}: {e}");
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
        let e = ShardSpec::resolve(None, None, env(&[("JOB_COMPLETION_INDEX", "1")])).unwrap_err();
        assert!(e.contains("--shards"), "{e}");
        let e =
            ShardSpec::resolve(None, Some(3), env(&[("JOB_COMPLETION_INDEX", "3")])).unwrap_err();
        assert!(
            e.contains("JOB_COMPLETION_INDEX=3") && e.contains("outside 1..=3"),
            "{e}"
        );
        let e = ShardSpec::resolve(None, None, env(&[("SLURM_ARRAY_TASK_ID", "1")])).unwrap_err();
        assert!(e.contains("SLURM_ARRAY_TASK_COUNT"), "{e}");
        let e = ShardSpec::resolve(Some("1/3"), Some(4), env(&[])).unwrap_err();
        assert!(e.contains("disagree"), "{e}");
        let e = ShardSpec::resolve(None, Some(4), env(&[])).unwrap_err();
        assert!(e.contains("JOB_COMPLETION_INDEX"), "{e}");
    }
}
