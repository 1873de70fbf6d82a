//! CSV exports neutralise formula injection (issue 12 §4, OWASP's CSV-injection rule): a
//! cell a spreadsheet would run as a formula gets a leading `'`; plain numbers stay numbers.
//! `render_csv` is what both `tabprobe report --csv` and the site's CSV buttons write.

use tabprobe_core::report::{csv_text, render_csv, Row, Section, SectionId};

#[test]
fn formula_cells_are_prefixed_and_quoted() {
    for (cell, want) in [
        ("=1+1", "'=1+1"),
        ("+SUM(A1:A9)", "'+SUM(A1:A9)"),
        ("-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"),
        ("@SUM(1)", "'@SUM(1)"),
        ("\t=1", "'\t=1"),
        ("\r=1", "\"'\r=1\""),
        // Quoting still applies after the prefix.
        (
            "=HYPERLINK(\"http://x\",\"y\")",
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"",
        ),
        ("=a,b", "\"'=a,b\""),
        // Plain numbers are not formulas: negative figures stay numbers.
        ("-0.12", "-0.12"),
        ("+3", "+3"),
        ("-1e-3", "-1e-3"),
        ("-12.5%", "-12.5%"),
        // Ordinary text is untouched; a sign inside is harmless.
        ("row_deletion", "row_deletion"),
        ("a=b", "a=b"),
        ("", ""),
        ("-", "'-"),
        ("-.5", "'-.5"),
    ] {
        // Beside a second cell: a record of one empty field is written `""`, so that it is
        // not an empty line.
        assert_eq!(csv_text([[cell, "x"]]), format!("{want},x\n"), "{cell:?}");
    }
}

#[test]
fn render_csv_neutralises_every_cell_header_included() {
    let s = Section {
        id: SectionId::Run,
        title: "t".into(),
        notes: vec![],
        header: vec!["=group".into(), "score".into()],
        rows: vec![
            Row::new(vec!["@evil".into(), "-0.5".into()]),
            Row::new(vec!["category:plain".into(), "0.25".into()]),
        ],
        bars: vec![],
    };
    assert_eq!(
        render_csv(&s),
        "'=group,score\n'@evil,-0.5\ncategory:plain,0.25\n"
    );
}
