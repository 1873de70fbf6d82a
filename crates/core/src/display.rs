//! How people read names and sizes: the snake_case names of run files, links and the command
//! line with spaces (`row_deletion` → `row deletion`), and byte counts in decimal units. The
//! page's labels, the report's headings and every size an error or status line gives come from
//! here.

/// `name` as people read it: `_` as a space.
pub fn readable(name: &str) -> String {
    name.replace('_', " ")
}

/// A byte count in decimal units, as file managers show it: `512 bytes`, `12.3 kB`,
/// `104.9 MB`, `1.42 GB` (two decimals from a gigabyte on, where a tenth is 100 MB).
pub fn bytes(n: u64) -> String {
    let n = n as f64;
    if n < 1e3 {
        format!("{n} bytes")
    } else if n < 1e6 {
        format!("{:.1} kB", n / 1e3)
    } else if n < 1e9 {
        format!("{:.1} MB", n / 1e6)
    } else {
        format!("{:.2} GB", n / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_by_hand() {
        assert_eq!(bytes(0), "0 bytes");
        assert_eq!(bytes(999), "999 bytes");
        assert_eq!(bytes(1_000), "1.0 kB");
        assert_eq!(bytes(123_456), "123.5 kB");
        assert_eq!(bytes(104_857_600), "104.9 MB");
        assert_eq!(bytes(999_949_999), "999.9 MB");
        assert_eq!(bytes(1_420_000_000), "1.42 GB");
        // 2 GiB, the browser's weights limit.
        assert_eq!(bytes(2 * 1024 * 1024 * 1024), "2.15 GB");
    }

    #[test]
    fn underscores_read_as_spaces() {
        assert_eq!(readable("relevant_row_deletion"), "relevant row deletion");
        assert_eq!(readable("derived"), "derived");
    }
}
