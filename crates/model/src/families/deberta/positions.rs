//! DeBERTa's relative positions: `make_log_bucket_position` and the gather index of the
//! `c2p` / `p2c` terms.

use crate::families::deberta::config::DebertaV2Config;

/// `make_log_bucket_position` for one relative distance: distances within `bucket_size / 2`
/// stay as they are, longer ones map to `mid + ⌈ln(|d| / mid) / ln((max_position − 1) / mid) ×
/// (mid − 1)⌉` with the sign of `d`. Computed in f32 as `transformers` does.
pub fn log_bucket(relative: i64, bucket_size: usize, max_position: usize) -> i64 {
    let mid = (bucket_size / 2) as i64;
    let sign = relative.signum();
    let abs = if relative < mid && relative > -mid {
        mid - 1
    } else {
        relative.abs()
    };
    if abs <= mid {
        return relative;
    }
    let ratio = ((max_position as f64 - 1.0) / mid as f64) as f32;
    let log_pos =
        ((abs as f32 / mid as f32).ln() / ratio.ln() * (mid - 1) as f32).ceil() + mid as f32;
    log_pos as i64 * sign
}

/// `idx[i][j] = clamp(bucket(i − j) + span, 0, 2 span − 1)`, row-major `[seq, seq]`: the row of
/// the relative embeddings query `i` uses against key `j` in `c2p` (and, transposed through
/// the bucket's odd symmetry, in `p2c`).
pub fn relative_index(seq: usize, config: &DebertaV2Config) -> Vec<i64> {
    let span = config.att_span() as i64;
    let buckets = config.position_buckets;
    let max_relative = config.max_relative();
    let mut idx = Vec::with_capacity(seq * seq);
    for i in 0..seq as i64 {
        for j in 0..seq as i64 {
            let d = i - j;
            let bucket = if buckets > 0 && max_relative > 0 {
                log_bucket(d, buckets as usize, max_relative)
            } else {
                d
            };
            idx.push((bucket + span).clamp(0, 2 * span - 1));
        }
    }
    idx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_buckets_by_hand() {
        // bucket_size 32 → mid 16; max_position 96: ln(95/16) = 1.78116…
        // |d| ≤ 16 stays; d = 17: ⌈ln(17/16)/1.78116 × 15⌉ + 16 = ⌈0.5106⌉ + 16 = 17;
        // d = 40: ⌈ln(2.5)/1.78116 × 15⌉ + 16 = ⌈7.7160⌉ + 16 = 24;
        // d = 60: ⌈ln(3.75)/1.78116 × 15⌉ + 16 = ⌈11.131⌉ + 16 = 28.
        assert_eq!(log_bucket(5, 32, 96), 5);
        assert_eq!(log_bucket(-16, 32, 96), -16);
        assert_eq!(log_bucket(17, 32, 96), 17);
        assert_eq!(log_bucket(40, 32, 96), 24);
        assert_eq!(log_bucket(-40, 32, 96), -24);
        assert_eq!(log_bucket(60, 32, 96), 28);
    }

    #[test]
    fn relative_index_is_shifted_and_clamped() {
        let config: DebertaV2Config = serde_json::from_str(
            r#"{"relative_attention": true, "position_buckets": 4, "max_relative_positions": -1,
                "max_position_embeddings": 8}"#,
        )
        .unwrap();
        // span 4: idx = clamp(bucket(i - j) + 4, 0, 7).
        let idx = relative_index(3, &config);
        assert_eq!(idx[0], 4); // i = j
        assert_eq!(idx[1], 3); // i − j = −1
        assert_eq!(idx[3], 5); // i − j = 1
        assert!(idx.iter().all(|&v| (0..8).contains(&v)));
        // 2 × span rows of relative embeddings; v2's absolute positions by default.
        let shapes = crate::families::deberta::walk::expected_shapes(&config);
        assert_eq!(shapes["encoder.rel_embeddings.weight"], vec![8, 1536]);
        assert!(shapes.contains_key("embeddings.position_embeddings.weight"));
    }
}
